/** Messages a stream keeps unread at most before it stops reading from the server. */
const HIGH_WATER = 1000;

/**
 * The messages of a streaming call, read in order with `for await`: pushed as they arrive, the
 * stream paused while too many wait unread, ended by the call's end (or its failure, which the
 * reader's loop then throws).
 */
export class MessageQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private failure: Error | null = null;
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: Error) => void } | null = null;

  constructor(private readonly flow: { pause(): void; resume(): void }) {}

  push(item: T): void {
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ value: item, done: false });
      return;
    }
    this.items.push(item);
    if (this.items.length === HIGH_WATER) this.flow.pause();
  }

  /** No more messages; with `failure`, the reader's loop throws it once the queue is read. */
  end(failure: Error | null = null): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = failure;
    if (this.waiting && this.items.length === 0) {
      const { resolve, reject } = this.waiting;
      this.waiting = null;
      if (failure) reject(failure);
      else resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length > 0) {
          const value = this.items.shift() as T;
          if (this.items.length === HIGH_WATER / 2) this.flow.resume();
          return Promise.resolve({ value, done: false });
        }
        if (this.ended) {
          if (this.failure) {
            const failure = this.failure;
            this.failure = null;
            return Promise.reject(failure);
          }
          return Promise.resolve({ value: undefined, done: true });
        }
        if (this.waiting) return Promise.reject(new TypeError("a stream is read by one loop at a time"));
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
    };
  }
}
