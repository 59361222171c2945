import type { Partition } from "@volley/protocol";
import type { EngineVu, VuFactory } from "./engine-vu.js";
import type { IterationLog } from "./iteration-log.js";

/**
 * The VUs of one thread, created on first use. VU j of the thread carries the global number the
 * partition gives it, so numbers are unique across threads and workers.
 */
export class VuPool {
  /** VUs in an iteration now. */
  busyCount = 0;
  private readonly vus: EngineVu[] = [];
  private readonly idle: EngineVu[] = [];
  /**
   * performance.now() the iteration that is ending ended, while its end is being handled (-1
   * otherwise): a VU started again within that handling starts then, without a clock read of its own.
   */
  private endingAt = -1;
  private readonly ended = (vu: EngineVu) => {
    this.busyCount--;
    this.endingAt = this.log?.ended(vu) ?? -1;
    try {
      this.onIterationEnd(vu);
    } finally {
      this.endingAt = -1;
    }
  };

  constructor(
    private readonly create: VuFactory,
    private readonly partition: Partition,
    /** Most VUs this thread may create. */
    readonly capacity: number,
    private readonly onIterationEnd: (vu: EngineVu) => void,
    /** Added to every VU number (parts of a scenario number their VUs one after another). */
    private readonly numberOffset = 0,
    /** Where its iterations are recorded (none in tests of the pool alone). */
    private readonly log: IterationLog | null = null,
  ) {}

  get size(): number {
    return this.vus.length;
  }

  /** VU j of this thread (j < capacity). */
  get(j: number): EngineVu {
    while (this.vus.length <= j) {
      const index = this.vus.length;
      this.vus.push(this.create(this.numberOffset + this.partition.unitOf(index) + 1, index));
    }
    return this.vus[j];
  }

  /** Starts an iteration on `vu`; the pool's onIterationEnd hears when it ends. */
  run(vu: EngineVu, scheduledAt = -1): void {
    this.busyCount++;
    this.log?.started(vu, this.endingAt);
    vu.startIteration(this.ended, scheduledAt);
  }

  /** A VU that is not in an iteration, creating one while under capacity; undefined when all are busy. */
  acquire(): EngineVu | undefined {
    const free = this.idle.pop();
    if (free) return free;
    return this.vus.length < this.capacity ? this.get(this.vus.length) : undefined;
  }

  release(vu: EngineVu): void {
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
