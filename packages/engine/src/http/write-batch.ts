import { performance } from "node:perf_hooks";

/** A connection whose request waits in a batch to be written. */
export interface BatchedWriter {
  /** Writes its request now (unless it ended meanwhile); `at` is the batch's performance.now(). */
  flushWrite(at: number): void;
}

/**
 * A thread's HTTP/1.1 requests written together once the loop has handled every socket that
 * was ready, rather than each as soon as it is made (wrk writes the same way: a request goes out
 * when the next poll finds its socket writable). Loopback and VM networking wake the server on
 * a write it is not already busy with; one burst wakes it once. Against nginx on the other core
 * this was worth 1.09-1.22x req/s and ~2 µs of kernel time a request (bench/README.md).
 *
 * Only while `active`: the thread's BusyPoll turns it on under heavy load, where many answers
 * land in one poll. Under light load each request is written at once, so a request's wait for
 * its batch (part of its latency and its `sending` phase, never hidden) stays zero.
 */
export class WriteBatch {
  active = false;
  /** Requests that went through the batch so far (written, or ended while they waited). */
  batched = 0;
  private readonly waiting: BatchedWriter[] = [];
  private scheduled = false;
  private readonly flush = () => {
    this.scheduled = false;
    const at = performance.now();
    const { waiting } = this;
    // A write may end a connection and so a request, whose VU then makes its next: that one
    // joins the next batch, never this loop.
    const count = waiting.length;
    this.batched += count;
    for (let i = 0; i < count; i++) waiting[i].flushWrite(at);
    waiting.splice(0, count);
    if (waiting.length > 0) this.schedule();
  };

  /** Queues `writer`'s request for the end of this loop phase. */
  add(writer: BatchedWriter): void {
    this.waiting.push(writer);
    if (!this.scheduled) this.schedule();
  }

  private schedule(): void {
    this.scheduled = true;
    // Immediates run after the poll phase: every socket that was ready has been read by then.
    setImmediate(this.flush);
  }
}
