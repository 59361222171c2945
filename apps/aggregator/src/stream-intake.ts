import { hostname } from "node:os";
import { AGGREGATOR_GROUP } from "@volley/protocol";
import type { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * What becomes of an entry: what it went with (acknowledge it), "drop" (malformed: acknowledge
 * it), or a rejection (leave it pending: it is claimed again once idle).
 */
export interface StreamIntakeOptions<T> {
  /** A connection of its own: reads block. */
  redis: Redis;
  stream: string;
  /** Entries held at once (each until its group is sent). @defaultValue 5000 */
  maxHeld?: number;
  /** An entry pending this long at a consumer is taken over (the consumer died, or failed it). @defaultValue 10000 */
  claimIdleMs?: number;
  /** Handles one entry's batch JSON; `takenOver`: it was pending at another consumer (or failed here). */
  take: (data: string, takenOver: boolean) => Promise<T | "drop">;
  /** An entry acknowledged and deleted, with what it went with (for releasing claims). */
  onAcknowledged: (outcome: T) => void;
  log: Logger;
}

type StreamEntry = [id: string, fields: string[]];

/**
 * A partition's stream read as one consumer of its group: hundreds of entries per read, and
 * acknowledged (and deleted) in bulk once their group is sent. An entry is acknowledged only then,
 * so one held by a consumer that dies stays pending and is claimed by a live consumer after
 * `claimIdleMs` (XAUTOCLAIM, every few seconds), as BullMQ's stall check would.
 */
export class StreamIntake<T> {
  readonly consumer = `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private held = 0;
  private stopped = false;
  /** Entries to acknowledge, with the group each went with (none: dropped, or deleted while pending). */
  private readonly acks: Array<{ id: string; outcome?: T }> = [];
  private reading: Promise<void> = Promise.resolve();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly options: StreamIntakeOptions<T>) {}

  async start(): Promise<void> {
    const { redis, stream } = this.options;
    // From the stream's first entry: batches appended before any aggregator of the partition ran.
    await redis.xgroup("CREATE", stream, AGGREGATOR_GROUP, "0", "MKSTREAM").catch((error: Error) => {
      if (!error.message.includes("BUSYGROUP")) throw error;
    });
    this.timers.push(setInterval(() => void this.flushAcks(), 100));
    this.timers.push(setInterval(() => void this.claimIdle(), 5000));
    this.reading = this.readLoop();
  }

  /**
   * Stops reading, waits up to `graceMs` for the groups held to be sent, acknowledges what was;
   * whatever is still held stays pending for the other consumers of the partition.
   */
  async stop(graceMs = 3000): Promise<void> {
    this.stopped = true;
    await this.reading;
    const deadline = Date.now() + graceMs;
    while (this.held > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const timer of this.timers) clearInterval(timer);
    await this.flushAcks();
  }

  private async readLoop(): Promise<void> {
    const { redis, stream } = this.options;
    const maxHeld = this.options.maxHeld ?? 5000;
    while (!this.stopped) {
      if (this.held >= maxHeld) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      try {
        const answer = (await redis.xreadgroup(
          "GROUP",
          AGGREGATOR_GROUP,
          this.consumer,
          "COUNT",
          Math.min(500, maxHeld - this.held),
          "BLOCK",
          500,
          "STREAMS",
          stream,
          ">",
        )) as Array<[string, StreamEntry[]]> | null;
        for (const entry of answer?.[0]?.[1] ?? []) this.handle(entry, false);
      } catch (error) {
        if (this.stopped) return;
        this.options.log.warn({ err: (error as Error).message }, "cannot read the partition's stream");
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** Takes over entries pending too long at any consumer of the group (this one's failures too). */
  private async claimIdle(): Promise<void> {
    const { redis, stream } = this.options;
    let cursor = "0-0";
    try {
      do {
        const [next, entries, deleted] = (await redis.xautoclaim(
          stream,
          AGGREGATOR_GROUP,
          this.consumer,
          this.options.claimIdleMs ?? 10_000,
          cursor,
          "COUNT",
          500,
        )) as [string, Array<StreamEntry | null>, string[]?];
        for (const entry of entries) if (entry) this.handle(entry, true);
        // Entries deleted from the stream while pending: nothing to take, only to acknowledge.
        for (const id of deleted ?? []) this.acks.push({ id });
        cursor = next;
      } while (cursor !== "0-0" && !this.stopped);
    } catch (error) {
      this.options.log.warn({ err: (error as Error).message }, "cannot claim idle stream entries");
    }
  }

  private handle([id, fields]: StreamEntry, takenOver: boolean): void {
    // An entry without a `batch` field is malformed: "" fails the check and is dropped.
    const at = fields.indexOf("batch");
    const data = at < 0 ? "" : (fields[at + 1] ?? "");
    this.held++;
    this.options.take(data, takenOver).then(
      (outcome) => {
        this.held--;
        this.acks.push(outcome === "drop" ? { id } : { id, outcome });
      },
      () => {
        // Left pending: claimed again (here or by another consumer) once idle.
        this.held--;
      },
    );
  }

  private async flushAcks(): Promise<void> {
    if (this.acks.length === 0) return;
    const acks = this.acks.splice(0);
    const ids = acks.map((a) => a.id);
    const { redis, stream } = this.options;
    try {
      await redis
        .multi()
        .xack(stream, AGGREGATOR_GROUP, ...ids)
        .xdel(stream, ...ids)
        .exec();
    } catch (error) {
      // Not acknowledged: claimed again later, and answered from the ledger (sent already).
      this.options.log.warn({ err: (error as Error).message }, "cannot acknowledge stream entries");
      return;
    }
    // Gone from the stream: these can never come back, so their claims may go.
    for (const { outcome } of acks) if (outcome !== undefined) this.options.onAcknowledged(outcome);
  }
}
