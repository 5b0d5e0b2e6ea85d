-- AlterEnum
ALTER TYPE "RunStatus" ADD VALUE 'ended';
