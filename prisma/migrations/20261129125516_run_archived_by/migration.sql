-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "archivedBy" TEXT;
