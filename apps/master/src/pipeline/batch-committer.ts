import type { Database, StatsBatchRow } from "@volley/db";
import type { StatsBatch } from "@volley/protocol";
import type { StatsPipeline } from "./stats-pipeline.js";

/** A batch that can never be stored (unknown run or worker): the queue must not retry it. */
export class UnstorableBatchError extends Error {}

interface Pending {
  batch: StatsBatch;
  resolve: (outcome: "stored" | "duplicate") => void;
  reject: (error: Error) => void;
}

export interface BatchCommitterOptions {
  db: Database;
  pipeline: StatsPipeline;
  /** Most batches in one transaction. @defaultValue 500 */
  maxBatches?: number;
}

/**
 * Stores incoming batches durably before they are acknowledged, many per transaction (group
 * commit): hundreds of workers cost a few writes a second. Commits run one at a time, so a
 * redelivered copy is always seen as a duplicate rather than racing its original.
 */
export class BatchCommitter {
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;
  stored = 0;
  duplicates = 0;

  constructor(private readonly options: BatchCommitterOptions) {}

  submit(batch: StatsBatch): Promise<"stored" | "duplicate"> {
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      this.kick();
    });
  }

  /** Waits for everything submitted so far. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private kick(): void {
    if (this.running) return;
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.commitLoop())
      .finally(() => {
        this.running = null;
        if (this.queue.length) this.kick();
      });
  }

  private async commitLoop(): Promise<void> {
    while (this.queue.length) {
      const items = this.queue.splice(0, this.options.maxBatches ?? 500);
      await this.commit(items);
    }
  }

  private async commit(items: Pending[]): Promise<void> {
    const fresh: Array<Pending & { aggregator: NonNullable<Awaited<ReturnType<StatsPipeline["get"]>>> }> = [];
    const seen = new Set<string>();
    for (const item of items) {
      const { batch } = item;
      try {
        const aggregator = await this.options.pipeline.get(batch.runId);
        if (!aggregator) throw new UnstorableBatchError(`run ${batch.runId} does not exist`);
        if (!aggregator.hasWorker(batch.workerId)) {
          throw new UnstorableBatchError(`worker ${batch.workerId} has no part in run ${batch.runId}`);
        }
        const key = `${batch.runId}.${batch.workerId}.${batch.seq}`;
        if (seen.has(key) || aggregator.isDuplicate(batch)) {
          this.duplicates++;
          item.resolve("duplicate");
          continue;
        }
        seen.add(key);
        fresh.push({ ...item, aggregator });
      } catch (error) {
        item.reject(error as Error);
      }
    }
    if (!fresh.length) return;
    const rows: StatsBatchRow[] = fresh.map(({ batch }) => ({
      runId: batch.runId,
      workerId: batch.workerId,
      seq: batch.seq,
      second: batch.second,
      payload: JSON.stringify(batch),
    }));
    try {
      await this.options.db.batches.insertMany(rows);
    } catch (error) {
      for (const item of fresh) item.reject(error as Error);
      return;
    }
    this.stored += fresh.length;
    for (const item of fresh) {
      item.aggregator.accept(item.batch);
      item.resolve("stored");
    }
  }
}
