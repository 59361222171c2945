-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "capacity" TEXT,
ADD COLUMN     "loadChanges" TEXT NOT NULL DEFAULT '[]';

