-- AlterTable
ALTER TABLE "RunEvent" ADD COLUMN     "notifiedAt" TIMESTAMPTZ(3);
