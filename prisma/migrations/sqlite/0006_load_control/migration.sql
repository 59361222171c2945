-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Run" (
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
    "mergeState" TEXT NOT NULL DEFAULT '{}',
    "owner" TEXT,
    "leaseUntil" REAL,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "loadChanges" TEXT NOT NULL DEFAULT '[]',
    "capacity" TEXT
);
INSERT INTO "new_Run" ("closedThrough", "createdAt", "dropped", "durationS", "error", "executor", "failures", "finishedAt", "id", "leaseUntil", "mergeState", "name", "owner", "p95Ms", "passed", "pinned", "plannedDurationMs", "requests", "rps", "scenario", "startAt", "startedAt", "status", "stopReason", "thresholds", "warnings") SELECT "closedThrough", "createdAt", "dropped", "durationS", "error", "executor", "failures", "finishedAt", "id", "leaseUntil", "mergeState", "name", "owner", "p95Ms", "passed", "pinned", "plannedDurationMs", "requests", "rps", "scenario", "startAt", "startedAt", "status", "stopReason", "thresholds", "warnings" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE INDEX "Run_createdAt_id_idx" ON "Run"("createdAt", "id");
CREATE INDEX "Run_status_idx" ON "Run"("status");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

