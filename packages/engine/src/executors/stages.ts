/** A stage of a ramp: move linearly to `target` over `duration` ms. */
export interface Stage {
  duration: number;
  target: number;
}

export function stagesDuration(stages: readonly Stage[]): number {
  return stages.reduce((sum, stage) => sum + stage.duration, 0);
}

/** The ramp's value at `elapsedMs`, starting from `start`. */
export function interpolateStages(start: number, stages: readonly Stage[], elapsedMs: number): number {
  let from = start;
  let stageStart = 0;
  for (const stage of stages) {
    if (elapsedMs < stageStart + stage.duration) {
      return from + ((stage.target - from) * (elapsedMs - stageStart)) / stage.duration;
    }
    from = stage.target;
    stageStart += stage.duration;
  }
  return from;
}
