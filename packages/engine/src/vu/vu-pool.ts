import type { Partition } from "@volley/protocol";
import { VirtualUser } from "./virtual-user.js";
import type { VuContext } from "./vu-context.js";

/**
 * The VUs of one thread, created on first use. VU j of the thread carries the global number the
 * partition gives it, so numbers are unique across threads and workers.
 */
export class VuPool {
  /** VUs in an iteration now. */
  busyCount = 0;
  private readonly vus: VirtualUser[] = [];
  private readonly idle: VirtualUser[] = [];
  private readonly ended = (vu: VirtualUser) => {
    this.busyCount--;
    this.onIterationEnd(vu);
  };

  constructor(
    private readonly ctx: VuContext,
    private readonly partition: Partition,
    /** Most VUs this thread may create. */
    readonly capacity: number,
    private readonly onIterationEnd: (vu: VirtualUser) => void,
    /** Added to every VU number (parts of a scenario number their VUs one after another). */
    private readonly numberOffset = 0,
  ) {}

  get size(): number {
    return this.vus.length;
  }

  /** VU j of this thread (j < capacity). */
  get(j: number): VirtualUser {
    while (this.vus.length <= j) {
      const index = this.vus.length;
      this.vus.push(new VirtualUser(this.numberOffset + this.partition.unitOf(index) + 1, index, this.ctx));
    }
    return this.vus[j];
  }

  /** Starts an iteration on `vu`; the pool's onIterationEnd hears when it ends. */
  run(vu: VirtualUser, scheduledAt = -1): void {
    this.busyCount++;
    vu.startIteration(this.ended, scheduledAt);
  }

  /** A VU that is not in an iteration, creating one while under capacity; undefined when all are busy. */
  acquire(): VirtualUser | undefined {
    const free = this.idle.pop();
    if (free) return free;
    return this.vus.length < this.capacity ? this.get(this.vus.length) : undefined;
  }

  release(vu: VirtualUser): void {
    this.idle.push(vu);
  }

  abortAll(): void {
    for (const vu of this.vus) vu.abort();
  }

  /** Ends, uncounted, the iterations that have not sent anything yet (waiting for a connection). */
  abortUnstarted(): void {
    for (const vu of this.vus) if (vu.unstarted) vu.abort();
  }
}
