-- AlterTable
ALTER TABLE "RunSecond" ADD COLUMN     "stats" BYTEA;

