-- CreateTable
CREATE TABLE "RunFile" (
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,

    CONSTRAINT "RunFile_pkey" PRIMARY KEY ("runId","kind","name")
);

-- AddForeignKey
ALTER TABLE "RunFile" ADD CONSTRAINT "RunFile_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

