-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "executor" TEXT NOT NULL,
    "scenario" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "startAt" REAL,
    "plannedDurationMs" INTEGER NOT NULL,
    "stopReason" TEXT,
    "error" TEXT,
    "closedThrough" INTEGER NOT NULL DEFAULT -1,
    "durationS" REAL,
    "requests" REAL NOT NULL DEFAULT 0,
    "failures" REAL NOT NULL DEFAULT 0,
    "dropped" REAL NOT NULL DEFAULT 0,
    "rps" REAL NOT NULL DEFAULT 0,
    "p95Ms" REAL,
    "passed" BOOLEAN,
    "thresholds" TEXT,
    "warnings" TEXT NOT NULL DEFAULT '[]',
    "mergeState" TEXT NOT NULL DEFAULT '{}'
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
    "requests" REAL NOT NULL DEFAULT 0,
    "lostBatches" INTEGER NOT NULL DEFAULT 0,
    "peakCpu" REAL NOT NULL DEFAULT 0,
    "peakEventLoopDelayMs" REAL NOT NULL DEFAULT 0,
    "finalElapsedMs" REAL,

    PRIMARY KEY ("runId", "workerId"),
    CONSTRAINT "RunWorker_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RunSecond" (
    "runId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "second" INTEGER NOT NULL,
    "requests" REAL NOT NULL,
    "failures" REAL NOT NULL,
    "vus" INTEGER NOT NULL,
    "p50Ms" REAL,
    "p95Ms" REAL,
    "p99Ms" REAL,

    PRIMARY KEY ("runId", "name", "second"),
    CONSTRAINT "RunSecond_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RunAggregate" (
    "runId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "stats" TEXT NOT NULL,
    "rank" INTEGER NOT NULL,

    PRIMARY KEY ("runId", "name"),
    CONSTRAINT "RunAggregate_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Run_createdAt_id_idx" ON "Run"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

