import type { PerVuIterationsConfig } from "@volley/protocol";
import type { ExecutorContext } from "./base-executor.js";
import { ClosedModelExecutor } from "./closed-model.js";

/** Each VU runs the request list `iterations` times, then stops: exactly vus x iterations x requests. */
export class PerVuIterationsExecutor extends ClosedModelExecutor<PerVuIterationsConfig> {
  constructor(config: PerVuIterationsConfig, ctx: ExecutorContext) {
    super(config, ctx, ctx.partition.count(config.vus));
    this.maxIterations = config.iterations;
  }

  start(): void {
    if (this.pool.capacity === 0) {
      this.complete();
      return;
    }
    this.scheduleAt(this.config.maxDuration, () => this.stop());
    this.setPlannedTarget(this.config.vus);
  }
}
