/** What the gate admits: a VU whose request is ready to go. */
export interface GateEntrant {
  /** Sends the request the VU prepared; the gate calls it once a slot is free. */
  admit(): void;
  /** False once the VU gave up waiting (a stop): the gate skips it. */
  readonly waitingAtGate: boolean;
}

/**
 * Admits at most `limit` requests into the thread's connection pool (its connections: more would
 * only queue inside undici). VUs beyond wait here, in order, where a stop drops them at once: a
 * request that never left is not a request, and a million VUs on fifty connections must not take
 * a minute to stop while undici hands each queued request a socket just to abort it.
 */
export class ConnectionGate {
  private inFlight = 0;
  /** Requests let through so far (the thread's busy poll reads the rate). */
  admitted = 0;
  private waiting: GateEntrant[] = [];
  private head = 0;

  constructor(readonly limit: number) {}

  /** True when the request may go now; false when it waits for `admit`. */
  enter(entrant: GateEntrant): boolean {
    if (this.inFlight < this.limit) {
      this.inFlight++;
      this.admitted++;
      return true;
    }
    this.waiting.push(entrant);
    return false;
  }

  /** A request finished: its slot passes to the next waiting VU (admitted on a microtask). */
  leave(): void {
    while (this.head < this.waiting.length) {
      const next = this.waiting[this.head++];
      this.compact();
      if (next.waitingAtGate) {
        this.admitted++;
        // Let undici release the socket before the next dispatch picks one.
        queueMicrotask(() => next.admit());
        return;
      }
    }
    this.inFlight--;
  }

  get queued(): number {
    return this.waiting.length - this.head;
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
  }
}
