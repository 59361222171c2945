-- AlterTable
ALTER TABLE "RunSecond" ADD COLUMN "stats" TEXT;

