-- AlterEnum
ALTER TYPE "RunKind" ADD VALUE 'serving';
