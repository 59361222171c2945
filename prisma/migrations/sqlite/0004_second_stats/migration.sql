-- AlterTable
ALTER TABLE "RunSecond" ADD COLUMN "stats" BLOB;

