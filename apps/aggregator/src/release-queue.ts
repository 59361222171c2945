import type { Logger } from "pino";
import type { GroupLedger } from "./group-ledger.js";

const FLUSH_MS = 500;

/**
 * Claims of acknowledged batches, dropped in bulk twice a second: one call per group, not per
 * batch. A claim left behind (a crash before the flush) only costs memory until it expires.
 */
export class ReleaseQueue {
  private pending = new Map<string, { runId: string; group: string; members: string[] }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ledger: Pick<GroupLedger, "release">,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
  }

  add(runId: string, group: string, member: string): void {
    const key = `${runId}\n${group}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { runId, group, members: [] };
      this.pending.set(key, entry);
    }
    entry.members.push(member);
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    for (const { runId, group, members } of batch.values()) {
      await this.ledger.release(runId, group, members).catch((error: Error) => {
        this.log.warn({ err: error.message, runId, group }, "could not release claims; they will expire");
      });
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
