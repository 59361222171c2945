import {
  MAX_VUS_PER_THREAD,
  Partition,
  type PartitionStep,
  runPeakVus,
  runPeakVusField,
  type Scenario,
  ValidationError,
} from "@volley/protocol";

export interface PlannedWorker {
  workerId: string;
  name: string;
  host: string;
  threads: number;
  /** Most VUs this worker runs at once. */
  vus: number;
  partition: PartitionStep[];
}

/**
 * Splits a scenario across ready workers in proportion to their threads. A worker whose share
 * would be no VU at all is left out, so small runs do not park idle machines. A plan that would
 * give a thread more than MAX_VUS_PER_THREAD VUs is refused (a ValidationError, 400).
 */
export function planRun(
  scenario: Scenario,
  workers: Array<{ id: string; name: string; host: string; threads: number }>,
): PlannedWorker[] {
  const peak = runPeakVus(scenario);
  const threads = workers.reduce((sum, w) => sum + w.threads, 0);
  const needed = Math.ceil(peak / MAX_VUS_PER_THREAD);
  if (needed > threads) {
    throw new ValidationError("scenario", [
      {
        path: runPeakVusField(scenario),
        message: `${peak} VUs need ${needed} engine threads (at most ${MAX_VUS_PER_THREAD} VUs each); the ready workers have ${threads}: add workers or threads, or use fewer VUs`,
      },
    ]);
  }
  let chosen = [...workers];
  for (;;) {
    const weights = chosen.map((w) => w.threads);
    const counts = chosen.map((_, index) => new Partition([{ weights, index }]).count(peak));
    const idle = counts.indexOf(0);
    if (idle < 0 || chosen.length === 1) {
      return chosen.map((w, index) => ({
        workerId: w.id,
        name: w.name,
        host: w.host,
        threads: w.threads,
        vus: counts[index],
        partition: [{ weights, index }],
      }));
    }
    chosen = chosen.filter((_, index) => index !== idle);
  }
}
