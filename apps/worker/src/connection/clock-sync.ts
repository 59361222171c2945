/**
 * Estimates the master's clock from ping round trips: offset = master - local, taken from the
 * sample with the shortest round trip (its midpoint is the most certain).
 */
export class ClockSync {
  private bestRtt = Number.POSITIVE_INFINITY;
  private offset = 0;
  private samples = 0;

  /** Local epoch ms of a master epoch ms. */
  toLocal(masterTime: number): number {
    return masterTime - this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  /**
   * How far the estimate can be off, ms: half the best round trip (the master read its clock
   * somewhere inside it). Null before the first round trip.
   */
  get uncertaintyMs(): number | null {
    return Number.isFinite(this.bestRtt) ? this.bestRtt / 2 : null;
  }

  get sampleCount(): number {
    return this.samples;
  }

  add(t0: number, serverTime: number, t1 = Date.now()): void {
    const rtt = t1 - t0;
    if (rtt < 0) return;
    this.samples++;
    // Older samples age out slowly so a drifting clock is followed.
    this.bestRtt *= 1.05;
    if (rtt <= this.bestRtt) {
      this.bestRtt = rtt;
      this.offset = serverTime - (t0 + t1) / 2;
    }
  }

  /** Seeds the estimate from the welcome message (no round trip known yet). */
  seed(serverTime: number, now = Date.now()): void {
    if (this.samples === 0) this.offset = serverTime - now;
  }
}
