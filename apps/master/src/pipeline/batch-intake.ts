import type { CombinedBatch, StatsBatch } from "@volley/protocol";
import { DecodedHistograms } from "@volley/stats";
import type { StatsPipeline } from "./stats-pipeline.js";

/** A batch that can never be merged (unknown run or worker): the queue must not retry it. */
export class UnmergeableBatchError extends Error {}

/**
 * Takes batches from the queue into their run's aggregator. `submit` resolves only once the
 * batch is durable (the checkpoint that includes it has committed), so the queue keeps the job
 * until then; a redelivered copy is recognised by its (worker, seq) and acknowledged at once.
 */
export class BatchIntake {
  /** Worker batches merged (those an aggregator's group covers included). */
  accepted = 0;
  duplicates = 0;
  /** Aggregators' groups merged. */
  groups = 0;

  /** One batch's histograms between its check and its merge (both synchronous, one batch at a time). */
  private readonly histograms = new DecodedHistograms();

  constructor(private readonly pipeline: StatsPipeline) {}

  /**
   * Merges a worker's batch, then resolves once it is durable. Nothing waiting holds the batch:
   * the merge returns only its run (see StatsConsumer for why that matters).
   */
  submit(batch: StatsBatch): Promise<"accepted" | "duplicate"> {
    return this.untilDurable(this.merge(batch));
  }

  /** An aggregator's group, as `submit` takes a batch. */
  submitCombined(batch: CombinedBatch): Promise<"accepted" | "duplicate"> {
    return this.untilDurable(this.mergeCombined(batch));
  }

  private async untilDurable(merged: Promise<string | null>): Promise<"accepted" | "duplicate"> {
    const runId = await merged;
    if (runId === null) return "duplicate";
    await this.pipeline.durable(runId);
    return "accepted";
  }

  /** Merges a batch; its run, or null for a duplicate. */
  private async merge(batch: StatsBatch): Promise<string | null> {
    const aggregator = await this.pipeline.get(batch.runId);
    if (!aggregator) throw new UnmergeableBatchError(`run ${batch.runId} does not exist`);
    if (!aggregator.hasWorker(batch.workerId)) {
      throw new UnmergeableBatchError(`worker ${batch.workerId} has no part in run ${batch.runId}`);
    }
    if (aggregator.isDuplicate(batch)) {
      // The original stays unacknowledged until it is durable, so this copy can go now.
      this.duplicates++;
      return null;
    }
    const problem = aggregator.problem(batch, this.histograms);
    if (problem) throw new UnmergeableBatchError(problem);
    aggregator.accept(batch, this.histograms);
    this.accepted++;
    return batch.runId;
  }

  /**
   * An aggregator's group: merged whole, or acknowledged as a duplicate when every batch it
   * covers was merged before. Part of it merged cannot happen while aggregators keep their claims
   * (each worker batch belongs to one group for good); such a group is refused, not half-counted.
   */
  private async mergeCombined(batch: CombinedBatch): Promise<string | null> {
    const aggregator = await this.pipeline.get(batch.runId);
    if (!aggregator) throw new UnmergeableBatchError(`run ${batch.runId} does not exist`);
    const state = aggregator.combinedState(batch);
    if (state === "duplicate") {
      this.duplicates++;
      return null;
    }
    if (state === "overlap") {
      throw new UnmergeableBatchError(`group ${batch.group} covers batches merged before and others not`);
    }
    const problem = aggregator.combinedProblem(batch, this.histograms);
    if (problem) throw new UnmergeableBatchError(`group ${batch.group}: ${problem}`);
    aggregator.acceptCombined(batch, this.histograms);
    this.accepted += batch.covers.length;
    this.groups++;
    return batch.runId;
  }
}
