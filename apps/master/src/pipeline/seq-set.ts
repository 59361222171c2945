/**
 * A set of batch sequence numbers kept small: every seq below `below` is in, plus a few above
 * (batches can arrive out of order). Serialized into RunWorker rows to make redelivery harmless.
 */
export class SeqSet {
  private readonly above = new Set<number>();

  constructor(
    private below = 0,
    above: Iterable<number> = [],
  ) {
    for (const seq of above) this.add(seq);
  }

  has(seq: number): boolean {
    return seq < this.below || this.above.has(seq);
  }

  add(seq: number): void {
    if (this.has(seq)) return;
    this.above.add(seq);
    while (this.above.delete(this.below)) this.below++;
  }

  /** Every seq below this is in the set. */
  get contiguousBelow(): number {
    return this.below;
  }

  /** The largest seq in the set, or -1. */
  get highest(): number {
    return Math.max(this.below - 1, ...this.above);
  }

  get size(): number {
    return this.below + this.above.size;
  }

  toJSON(): { below: number; above: number[] } {
    return { below: this.below, above: [...this.above].sort((a, b) => a - b) };
  }
}
