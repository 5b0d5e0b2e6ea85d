-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "archivedAt" TIMESTAMPTZ(3),
ADD COLUMN     "editedAt" TIMESTAMPTZ(3),
ADD COLUMN     "editedBy" TEXT;
