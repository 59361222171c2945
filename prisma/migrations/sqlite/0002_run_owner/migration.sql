-- AlterTable
ALTER TABLE "Run" ADD COLUMN "leaseUntil" REAL;
ALTER TABLE "Run" ADD COLUMN "owner" TEXT;

