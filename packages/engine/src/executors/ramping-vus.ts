import { type RampingVusConfig, vuCeiling } from "@volley/protocol";
import type { ExecutorContext } from "./base-executor.js";
import { ClosedModelExecutor, TARGET_TICK_MS } from "./closed-model.js";
import { interpolateStages, stagesDuration } from "./stages.js";

/** VUs follow `stages`: each moves linearly from the previous target to its own over its duration. */
export class RampingVusExecutor extends ClosedModelExecutor<RampingVusConfig> {
  private readonly totalMs: number;

  constructor(config: RampingVusConfig, ctx: ExecutorContext) {
    super(config, ctx, ctx.partition.count(vuCeiling(config)));
    this.totalMs = stagesDuration(config.stages);
  }

  start(): void {
    this.scheduleAt(this.totalMs, () => this.stop());
    this.tick();
  }

  private tick(): void {
    const elapsed = this.elapsed();
    this.setPlannedTarget(Math.round(interpolateStages(this.config.startVus, this.config.stages, elapsed)));
    if (elapsed < this.totalMs) this.schedule(() => this.tick(), TARGET_TICK_MS);
  }
}
