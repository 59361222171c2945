-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "pinned" BOOLEAN NOT NULL DEFAULT false;

