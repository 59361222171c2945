import {
  type LoadChange,
  type LoadChangeRecord,
  runGracefulStopMs,
  runPlannedMs,
  type Scenario,
  statsNames,
  type WorkerHeartbeat,
} from "@volley/protocol";
import { isWorkerDone } from "../pipeline/merge-state.js";
import type { RunAggregator } from "../pipeline/run-aggregator.js";
import type { WorkerRegistry } from "../workers/worker-registry.js";
import { CapacityJudge } from "./capacity/capacity-judge.js";
import type { RowHandover } from "./row-handover.js";
import type { RunHooks } from "./run-scripts.js";
import { SaturationTracker } from "./saturation-tracker.js";

/** The run's slice as sent at the start, and the split of the fleet now. */
export interface RunLaunchState {
  input: unknown;
  env: Record<string, string>;
  packedFiles: string | null;
  /** The run's workers in partition order, with their weights (threads). */
  split: Array<{ workerId: string; threads: number }>;
  /** Rebalances so far. */
  rebalances: number;
  /** Who holds which rows of the run's unique feeders; null without one. */
  rows: RowHandover | null;
  /** A rebalance is under way (its workers are giving up rows): another waits its end. */
  rebalancing: boolean;
}

/** What the scheduler keeps about the run in progress. */
export interface ActiveRun {
  id: string;
  scenario: Scenario;
  startAt: number;
  deadline: number;
  aggregator: RunAggregator;
  saturation: SaturationTracker;
  /** When each worker of the run was last seen connected and in this run. */
  seen: Map<string, number>;
  rejected: Map<string, string>;
  stopReason: string | null;
  /** Why the run was stopped for a worker's blocked engine thread (shown as the run's error). */
  blocked: string | null;
  /** The worst clock uncertainty each worker reported during the run, ms. */
  clockUncertainty: Map<string, { name: string; ms: number }>;
  finishing: boolean;
  /** Until when completing waits for batches still queued (set once a lost worker made it complete). */
  drainUntil?: number;
  /** Changes of the load made while it runs, oldest first (kept in the run's row too). */
  loadChanges: LoadChangeRecord[];
  /** A capacity search's judge, fed each merged second; null for other executors. */
  capacity: CapacityJudge | null;
  /** Steps of the search already written to the run's row. */
  capacityStepsSaved: number;
  /** The load changes as the workers applied them (a joining worker applies them too). */
  appliedChanges: LoadChange[];
  /**
   * What a worker joining the run needs (the slice, the run's files and env, the split so far);
   * only the master that launched the run has it (env values are never stored).
   */
  launch?: RunLaunchState;
  /**
   * The aggregator partition each worker's batches go through (null: the run's queue), as the
   * master routed them and as their heartbeats report them.
   */
  routes: Map<string, string | null>;
  /** The run's script bundles and setup() results, for teardown() once it ends (this master's runs). */
  scripts?: RunHooks & { setupData: Record<string, string> };
}

export function newActiveRun(
  id: string,
  scenario: Scenario,
  startAt: number,
  aggregator: RunAggregator,
  overrunMs: number,
): ActiveRun {
  return {
    id,
    scenario,
    startAt,
    // Past this the run is told to stop; past it plus overrunMs its silent workers are lost.
    deadline: startAt + runPlannedMs(scenario) + runGracefulStopMs(scenario) + overrunMs,
    aggregator,
    saturation: new SaturationTracker(startAt),
    seen: new Map(aggregator.workerList().map((w) => [w.workerId, Date.now()])),
    rejected: new Map(),
    stopReason: null,
    blocked: null,
    clockUncertainty: new Map(),
    finishing: false,
    loadChanges: [],
    capacity: capacityJudgeOf(scenario, aggregator),
    capacityStepsSaved: 0,
    appliedChanges: [],
    routes: new Map(),
  };
}

/**
 * What a heartbeat of one of the run's workers tells the run: it is present, its stats route, its
 * load-generator health, its clock. True when it reports a blocked engine thread for the first time
 * in the run (`active.blocked` then names it).
 */
export function recordHeartbeat(
  active: ActiveRun,
  workerId: string,
  name: string,
  heartbeat: WorkerHeartbeat,
  saturated: boolean,
): boolean {
  active.seen.set(workerId, Date.now());
  if (heartbeat.aggregator !== undefined) active.routes.set(workerId, heartbeat.aggregator);
  active.saturation.record(workerId, name, heartbeat, saturated);
  if (heartbeat.clockUncertaintyMs !== undefined) {
    const worst = Math.max(heartbeat.clockUncertaintyMs, active.clockUncertainty.get(workerId)?.ms ?? 0);
    active.clockUncertainty.set(workerId, { name, ms: worst });
  }
  if (!heartbeat.blocked || active.blocked !== null) return false;
  active.blocked = `${name}: ${heartbeat.blocked}`;
  return true;
}

/**
 * The master could not look for `ms` (its event loop stalled): the run's marks for silence (the
 * planned end, each worker last seen) move by that much, as if the time had not passed.
 */
export function creditStall(active: ActiveRun, ms: number): void {
  active.deadline += ms;
  for (const [workerId, seen] of active.seen) active.seen.set(workerId, seen + ms);
}

/** Longest a run with lost workers waits for the batches still in its queue. */
const QUEUE_DRAIN_MS = 30_000;

/**
 * A run whose figures are complete only because workers were given up as lost is not judged
 * while its queue still holds batches (a master that was down or frozen finds them there on its
 * return, a dead aggregator's stream is being read): they are merged first, for up to QUEUE_DRAIN_MS.
 */
export async function batchesStillQueued(
  active: ActiveRun,
  ingest: { pending(runId: string): Promise<number> },
): Promise<boolean> {
  if (!active.aggregator.workerList().some((w) => w.lost)) return false;
  active.drainUntil ??= Date.now() + QUEUE_DRAIN_MS;
  if (Date.now() >= active.drainUntil) return false;
  const queued = await ingest.pending(active.id).catch(() => 0);
  return queued > 0;
}

/**
 * Marks lost the run's workers neither connected in this run nor done for longer than `graceMs`;
 * returns their ids.
 */
export function markAbsentWorkers(
  active: ActiveRun,
  registry: WorkerRegistry,
  now: number,
  graceMs = 15_000,
): string[] {
  const lost: string[] = [];
  for (const worker of active.aggregator.workerList()) {
    if (worker.lost || active.rejected.has(worker.workerId)) continue;
    const entry = registry.get(worker.workerId);
    const present = entry?.channel && entry.info.state !== "lost" && entry.info.runId === active.id;
    if (present) active.seen.set(worker.workerId, now);
    else if (now - (active.seen.get(worker.workerId) ?? now) > graceMs && !isWorkerDone(worker)) {
      active.aggregator.markLost(worker.workerId);
      lost.push(worker.workerId);
    }
  }
  return lost;
}

/** The judge of a capacity-search run (it runs alone), listening to the aggregator's seconds. */
function capacityJudgeOf(scenario: Scenario, aggregator: RunAggregator): CapacityJudge | null {
  const [part] = scenario.parts;
  if (scenario.parts.length !== 1 || part.load.executor !== "capacity-search") return null;
  const oneRequest = part.flows.length === 1 && scenario.requests.length === 1;
  const judge = new CapacityJudge(
    part.load,
    statsNames(scenario),
    oneRequest ? "req/s" : "iterations/s",
    part.name,
  );
  aggregator.onSecondClosed = (second, stats) => judge.addSecond(second, stats);
  return judge;
}
