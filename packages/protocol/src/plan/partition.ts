import { z } from "zod";

/**
 * How a whole load is split into slices (workers, then threads) so that every slice can compute
 * its own part alone and the parts always add up: units (VUs) are dealt out in a fixed weighted
 * round-robin cycle, so a slice's count never drops when the total grows, and VU numbers are
 * unique across the fleet.
 */
export const partitionStepSchema = z.strictObject({
  weights: z.array(z.int().min(1)).min(1),
  index: z.int().min(0),
});
export type PartitionStep = z.infer<typeof partitionStepSchema>;

/** One level of the split: a cycle of length sum(weights) in which slot k appears weights[k] times. */
class WeightedCycle {
  readonly length: number;
  /** Ascending positions of the slot in the cycle. */
  readonly positions: number[];

  constructor(
    readonly weights: number[],
    readonly slot: number,
  ) {
    if (slot < 0 || slot >= weights.length)
      throw new RangeError(`slot ${slot} outside ${weights.length} weights`);
    this.length = weights.reduce((a, b) => a + b, 0);
    this.positions = smoothWeightedOrder(weights)
      .map((owner, position) => (owner === slot ? position : -1))
      .filter((position) => position >= 0);
  }

  /** How many of the first `total` units fall to this slot. */
  count(total: number): number {
    const cycles = Math.floor(total / this.length);
    const rest = total - cycles * this.length;
    let inRest = 0;
    while (inRest < this.positions.length && this.positions[inRest] < rest) inRest++;
    return cycles * this.positions.length + inRest;
  }

  /** The unit number (0-based, in the parent's numbering) of this slot's j-th unit. */
  unitOf(j: number): number {
    const weight = this.positions.length;
    return Math.floor(j / weight) * this.length + this.positions[j % weight];
  }
}

/** Interleaves slots in proportion to their weights (nginx's smooth weighted round robin). */
function smoothWeightedOrder(weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const current = weights.map(() => 0);
  const order: number[] = [];
  for (let step = 0; step < total; step++) {
    let best = 0;
    for (let k = 0; k < weights.length; k++) {
      current[k] += weights[k];
      if (current[k] > current[best]) best = k;
    }
    current[best] -= total;
    order.push(best);
  }
  return order;
}

export class Partition {
  private readonly levels: WeightedCycle[];

  constructor(readonly steps: PartitionStep[] = []) {
    this.levels = steps.map((step) => new WeightedCycle(step.weights, step.index));
  }

  /** This slice split further into `weights`, keeping slot `index`. */
  child(weights: number[], index: number): Partition {
    return new Partition([...this.steps, { weights, index }]);
  }

  /** How many of `total` units (VUs, iterations) belong to this slice. */
  count(total: number): number {
    let n = total;
    for (const level of this.levels) n = level.count(n);
    return n;
  }

  /**
   * This slice's own part of [0, 1), disjoint from every other slice's of the same plan (each
   * level gives slot k the interval after the weights before it): for splitting a resource, such
   * as a source address's ports, between slices without their talking to each other.
   */
  span(): { from: number; to: number } {
    let from = 0;
    let width = 1;
    for (const level of this.levels) {
      const before = level.weights.slice(0, level.slot).reduce((a, b) => a + b, 0);
      from += (width * before) / level.length;
      width *= level.weights[level.slot] / level.length;
    }
    return { from, to: from + width };
  }

  /** Global 0-based number of this slice's j-th unit. */
  unitOf(j: number): number {
    let unit = j;
    for (let i = this.levels.length - 1; i >= 0; i--) unit = this.levels[i].unitOf(unit);
    return unit;
  }
}
