import type { CombinedBatch, StatsBatch } from "@volley/protocol";
import { type DecodedHistograms, StatsAggregate } from "@volley/stats";
import type { Logger } from "pino";
import { combineBatches } from "./combine.js";
import { type GroupLedger, type HeldGroup, memberOf } from "./group-ledger.js";

/** A worker batch held until its group is in the master's queue (then its job is acknowledged). */
interface Pending {
  batch: StatsBatch;
  /** More than one when the same job came back while held (a lock lost to a stalled loop). */
  waiters: Array<{ resolve: (group: string | null) => void; reject: (error: Error) => void }>;
}

/** A second of a run still taking batches. */
interface OpenGroup {
  runId: string;
  second: number;
  entries: Map<string, Pending>;
  stats: StatsAggregate;
}

export interface GroupAssemblerOptions {
  partition: string;
  ledger: Pick<GroupLedger, "claim" | "sent">;
  /** Puts a combined batch into its run's queue. */
  send: (batch: CombinedBatch) => Promise<void>;
  /** How long a second's group takes batches after its first. @defaultValue 500 */
  windowMs?: number;
  log: Logger;
}

/**
 * Groups worker batches per run and second: a group opens with its first batch and closes
 * `windowMs` later; then its batches are claimed in the ledger with the group's combined batch,
 * and that is sent. A batch an earlier attempt had claimed (its aggregator died before the job
 * was acknowledged) is answered with that attempt's stored group, sent again if it was not —
 * never put into a new one.
 */
export class GroupAssembler {
  private readonly open = new Map<string, OpenGroup>();

  constructor(private readonly options: GroupAssemblerOptions) {}

  /**
   * Takes a checked batch; resolves with its group once the group is in the master's queue, or
   * with null when its run has ended (nothing of it may count any more: acknowledge, send nothing).
   * `histograms`: the batch's histograms, read by the check (merged now, synchronously).
   */
  add(batch: StatsBatch, histograms?: DecodedHistograms): Promise<string | null> {
    return new Promise((resolve, reject) => {
      const key = `${batch.runId}\n${batch.second}`;
      let group = this.open.get(key);
      if (!group) {
        group = { runId: batch.runId, second: batch.second, entries: new Map(), stats: new StatsAggregate() };
        this.open.set(key, group);
        const opened = group;
        setTimeout(() => {
          this.open.delete(key);
          void this.close(opened);
        }, this.options.windowMs ?? 500);
      }
      const member = memberOf(batch.workerId, batch.seq);
      const known = group.entries.get(member);
      if (known) {
        known.waiters.push({ resolve, reject });
        return;
      }
      group.entries.set(member, { batch, waiters: [{ resolve, reject }] });
      group.stats.add(batch.requests, batch.dropped, histograms);
    });
  }

  private async close(group: OpenGroup): Promise<void> {
    const { runId, second, entries } = group;
    const { partition, ledger } = this.options;
    let stats = group.stats;
    try {
      while (entries.size > 0) {
        const batches = [...entries.values()].map((e) => e.batch);
        const combined = combineBatches({ runId, partition, group: "", second }, batches, stats);
        const claim = await ledger.claim(runId, partition, [...entries.keys()], JSON.stringify(combined));
        if (claim.ended) {
          settle(entries.values(), null);
          return;
        }
        if (claim.group !== null) {
          await this.sendGroup({ ...combined, group: claim.group });
          settle(entries.values(), claim.group);
          return;
        }
        // Some were claimed before (rare: after a crash): they go with their group, the rest again.
        await this.answerHeld(runId, claim.held, entries);
        stats = new StatsAggregate();
        for (const entry of entries.values()) stats.add(entry.batch.requests, entry.batch.dropped);
      }
    } catch (error) {
      // The jobs go back to the queue; whatever was claimed is answered from the ledger next time.
      settle(entries.values(), error as Error);
    }
  }

  /** Acknowledges the held batches with their group, sending it first if it was not sent. */
  private async answerHeld(
    runId: string,
    held: Map<string, HeldGroup>,
    entries: Map<string, Pending>,
  ): Promise<void> {
    const byGroup = new Map<string, { group: HeldGroup; entries: Pending[] }>();
    for (const [member, group] of held) {
      const entry = entries.get(member);
      entries.delete(member);
      if (!entry) continue;
      const list = byGroup.get(group.group) ?? { group, entries: [] };
      list.entries.push(entry);
      byGroup.set(group.group, list);
    }
    for (const { group, entries: answered } of byGroup.values()) {
      try {
        if (!group.sent) {
          const stored = JSON.parse(group.payload) as CombinedBatch;
          await this.sendGroup({ ...stored, group: group.group });
          this.options.log.info({ runId, group: group.group }, "sent again a group claimed before a crash");
        }
        settle(answered, group.group);
      } catch (error) {
        settle(answered, error as Error);
      }
    }
  }

  private async sendGroup(batch: CombinedBatch): Promise<void> {
    await this.options.send({ ...batch, sentAt: Date.now() });
    await this.options.ledger.sent(batch.runId, batch.group);
  }
}

function settle(entries: Iterable<Pending>, outcome: string | null | Error): void {
  for (const entry of entries) {
    for (const waiter of entry.waiters) {
      if (outcome instanceof Error) waiter.reject(outcome);
      else waiter.resolve(outcome);
    }
  }
}
