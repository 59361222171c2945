-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "executor" TEXT NOT NULL,
    "scenario" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "startAt" DOUBLE PRECISION,
    "plannedDurationMs" INTEGER NOT NULL,
    "stopReason" TEXT,
    "error" TEXT,
    "closedThrough" INTEGER NOT NULL DEFAULT -1,
    "durationS" DOUBLE PRECISION,
    "requests" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "failures" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "dropped" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "rps" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "p95Ms" DOUBLE PRECISION,
    "passed" BOOLEAN,
    "thresholds" TEXT,
    "warnings" TEXT NOT NULL DEFAULT '[]',
    "mergeState" TEXT NOT NULL DEFAULT '{}',

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunWorker" (
    "runId" TEXT NOT NULL,
    "workerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "threads" INTEGER NOT NULL,
    "vus" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "finalSeq" INTEGER,
    "mergedBelow" INTEGER NOT NULL DEFAULT 0,
    "mergedAbove" TEXT NOT NULL DEFAULT '[]',
    "requests" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "lostBatches" INTEGER NOT NULL DEFAULT 0,
    "peakCpu" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "peakEventLoopDelayMs" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "finalElapsedMs" DOUBLE PRECISION,

    CONSTRAINT "RunWorker_pkey" PRIMARY KEY ("runId","workerId")
);

-- CreateTable
CREATE TABLE "RunSecond" (
    "runId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "second" INTEGER NOT NULL,
    "requests" DOUBLE PRECISION NOT NULL,
    "failures" DOUBLE PRECISION NOT NULL,
    "vus" INTEGER NOT NULL,
    "p50Ms" DOUBLE PRECISION,
    "p95Ms" DOUBLE PRECISION,
    "p99Ms" DOUBLE PRECISION,

    CONSTRAINT "RunSecond_pkey" PRIMARY KEY ("runId","name","second")
);

-- CreateTable
CREATE TABLE "RunAggregate" (
    "runId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "stats" TEXT NOT NULL,
    "rank" INTEGER NOT NULL,

    CONSTRAINT "RunAggregate_pkey" PRIMARY KEY ("runId","name")
);

-- CreateIndex
CREATE INDEX "Run_createdAt_id_idx" ON "Run"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- AddForeignKey
ALTER TABLE "RunWorker" ADD CONSTRAINT "RunWorker_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunSecond" ADD CONSTRAINT "RunSecond_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunAggregate" ADD CONSTRAINT "RunAggregate_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

