import type { RequestStats } from "@volley/protocol";
import { StatsAggregate } from "@volley/stats";
import type { SlicePeriod } from "./slice-engine.js";

interface ThreadProgress {
  lastSecond: number;
  finished: boolean;
}

interface PendingSecond {
  parts: RequestStats[][];
  dropped: number;
  vus: number;
  loopDelayMs: number;
  pollIdleMs: number;
}

/**
 * Merges the per-second periods of a worker's threads into one period per second, in order,
 * without gaps. A second is complete once every thread reported it or finished before it; the
 * last period is marked final once every thread has finished.
 */
export class PeriodMerger {
  private readonly threads: ThreadProgress[];
  private readonly pending = new Map<number, PendingSecond>();
  private next = 0;
  private finalEmitted = false;

  constructor(
    threadCount: number,
    private readonly onMerged: (period: SlicePeriod) => void,
  ) {
    this.threads = Array.from({ length: threadCount }, () => ({ lastSecond: -1, finished: false }));
  }

  get isComplete(): boolean {
    return this.finalEmitted;
  }

  add(thread: number, period: SlicePeriod): void {
    const progress = this.threads[thread];
    if (progress.finished || period.second <= progress.lastSecond) return;
    let entry = this.pending.get(period.second);
    if (!entry) {
      entry = { parts: [], dropped: 0, vus: 0, loopDelayMs: 0, pollIdleMs: 0 };
      this.pending.set(period.second, entry);
    }
    entry.parts.push(period.requests);
    entry.dropped += period.dropped;
    entry.vus += period.vus;
    entry.loopDelayMs = Math.max(entry.loopDelayMs, period.loopDelayMs);
    entry.pollIdleMs += period.pollIdleMs;
    progress.lastSecond = period.second;
    if (period.final) progress.finished = true;
    this.flush();
  }

  /** A thread that died: what it reported stays, and it reports nothing more. */
  threadEnded(thread: number): void {
    this.threads[thread].finished = true;
    this.flush();
  }

  private flush(): void {
    while (!this.finalEmitted) {
      const second = this.next;
      const complete = this.threads.every((t) => t.lastSecond >= second || t.finished);
      if (!complete) return;
      const allFinished = this.threads.every((t) => t.finished);
      const entry = this.pending.get(second);
      if (!entry && !allFinished) return;
      const final = allFinished && this.threads.every((t) => t.lastSecond <= second);
      if (!entry && !final) return;
      this.pending.delete(second);
      this.next++;
      this.finalEmitted = final;
      this.onMerged({
        second,
        final,
        requests: entry ? merge(entry.parts) : [],
        dropped: entry?.dropped ?? 0,
        vus: entry?.vus ?? 0,
        loopDelayMs: entry?.loopDelayMs ?? 0,
        pollIdleMs: entry?.pollIdleMs ?? 0,
      });
    }
  }
}

function merge(parts: RequestStats[][]): RequestStats[] {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
  const aggregate = new StatsAggregate();
  for (const part of nonEmpty) aggregate.add(part);
  return aggregate.toStats();
}
