-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "leaseUntil" DOUBLE PRECISION,
ADD COLUMN     "owner" TEXT;

