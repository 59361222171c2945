import type { CombinedBatch, StatsBatch } from "@volley/protocol";
import { type DecodedHistograms, StatsAggregate } from "@volley/stats";
import type { Logger } from "pino";
import { combineBatches } from "./combine.js";
import { type GroupLedger, type HeldGroup, memberOf } from "./group-ledger.js";

/** A worker batch held until its group is in the master's queue (then its job is acknowledged). */
interface Pending {
  batch: StatsBatch;
  /** More than one when the same job came back while held (a lock lost to a stalled loop). */
  waiters: Array<{ resolve: (group: string) => void; reject: (error: Error) => void }>;
}

/** A second of a run still taking batches. */
interface OpenGroup {
  runId: string;
  second: number;
  entries: Map<string, Pending>;
  stats: StatsAggregate;
}

/** A group an earlier attempt claimed but did not send: rebuilt once all its batches are back. */
interface Recovery {
  runId: string;
  group: string;
  members: Set<string>;
  entries: Map<string, Pending>;
  timer: NodeJS.Timeout;
}

export interface GroupAssemblerOptions {
  partition: string;
  ledger: Pick<GroupLedger, "claim" | "sent">;
  /** Puts a combined batch into its run's queue. */
  send: (batch: CombinedBatch) => Promise<void>;
  /** How long a second's group takes batches after its first. @defaultValue 500 */
  windowMs?: number;
  /** How long a group being rebuilt waits for the rest of its batches. @defaultValue 30000 */
  recoveryMs?: number;
  log: Logger;
}

/**
 * Groups worker batches per run and second: a group opens with its first batch and closes
 * `windowMs` later; then its batches are claimed in the ledger and its combined batch sent. A
 * batch a crashed attempt had claimed goes back into that group, sent again whole, never into a
 * new one — so the master sees each worker batch in exactly one group.
 */
export class GroupAssembler {
  private readonly open = new Map<string, OpenGroup>();
  private readonly recovering = new Map<string, Recovery>();
  /** Groups sent, and worker batches they covered (for metrics and the bench). */
  readonly counts = { groups: 0, batches: 0, recovered: 0 };

  constructor(private readonly options: GroupAssemblerOptions) {}

  /**
   * Takes a checked batch; resolves with its group once the group is in the master's queue.
   * `histograms`: the batch's histograms, read by the check (merged now, synchronously).
   */
  add(batch: StatsBatch, histograms?: DecodedHistograms): Promise<string> {
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

  /** Groups open or being rebuilt (for shutdown). */
  get pending(): number {
    return this.open.size + this.recovering.size;
  }

  private async close(group: OpenGroup): Promise<void> {
    const { runId, entries } = group;
    let claim: Awaited<ReturnType<GroupAssemblerOptions["ledger"]["claim"]>>;
    try {
      claim = await this.options.ledger.claim(runId, this.options.partition, [...entries.keys()]);
    } catch (error) {
      settle(entries.values(), error as Error);
      return;
    }
    let stats = group.stats;
    if (claim.held.size > 0) {
      for (const [member, held] of claim.held) {
        const entry = entries.get(member);
        entries.delete(member);
        if (entry) this.recover(runId, member, entry, held);
      }
      // Rare (after a crash): the batches left are merged again without the held ones.
      stats = new StatsAggregate();
      for (const entry of entries.values()) stats.add(entry.batch.requests, entry.batch.dropped);
    }
    if (claim.group !== null) await this.sendGroup(runId, group.second, claim.group, entries, stats);
  }

  private recover(runId: string, member: string, entry: Pending, held: HeldGroup): void {
    if (held.sent) {
      settle([entry], held.group); // the master has it already: acknowledge
      return;
    }
    const key = `${runId}\n${held.group}`;
    let recovery = this.recovering.get(key);
    if (!recovery) {
      const timer = setTimeout(() => {
        this.recovering.delete(key);
        const error = new Error(
          `group ${held.group}: ${recovery?.entries.size} of ${held.members.length} batches came back; retrying later`,
        );
        if (recovery) settle(recovery.entries.values(), error);
      }, this.options.recoveryMs ?? 30_000);
      recovery = { runId, group: held.group, members: new Set(held.members), entries: new Map(), timer };
      this.recovering.set(key, recovery);
    }
    recovery.entries.set(member, entry);
    if (recovery.entries.size < recovery.members.size) return;
    clearTimeout(recovery.timer);
    this.recovering.delete(key);
    const stats = new StatsAggregate();
    for (const e of recovery.entries.values()) stats.add(e.batch.requests, e.batch.dropped);
    this.counts.recovered++;
    this.options.log.info({ runId, group: held.group }, "group rebuilt after a restart; sending it again");
    void this.sendGroup(runId, entry.batch.second, held.group, recovery.entries, stats);
  }

  private async sendGroup(
    runId: string,
    second: number,
    group: string,
    entries: Map<string, Pending>,
    stats: StatsAggregate,
  ): Promise<void> {
    const batches = [...entries.values()].map((e) => e.batch);
    const combined = combineBatches(
      { runId, partition: this.options.partition, group, second },
      batches,
      stats,
    );
    try {
      await this.options.send(combined);
      await this.options.ledger.sent(runId, group);
    } catch (error) {
      // The jobs go back to the queue; their claims stay, so they rebuild this same group.
      settle(entries.values(), error as Error);
      return;
    }
    this.counts.groups++;
    this.counts.batches += batches.length;
    settle(entries.values(), group);
  }
}

function settle(entries: Iterable<Pending>, outcome: string | Error): void {
  for (const entry of entries) {
    for (const waiter of entry.waiters) {
      if (typeof outcome === "string") waiter.resolve(outcome);
      else waiter.reject(outcome);
    }
  }
}
