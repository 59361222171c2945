import { labelsMatch, type Scenario, selectorText, type WorkerInfo } from "@volley/protocol";
import type { WorkerEntry } from "../workers/worker-registry.js";

/** What deciding whether a run may start needs to know of the master's state. */
export interface AdmissionState {
  /** Connected workers (not lost), whatever their state. */
  workers: WorkerEntry[];
  /** The runs in progress on this master, by id, with their names. */
  active: ReadonlyMap<string, { name: string }>;
  /** Runs queued ahead of the one asking, first in line first. */
  queuedAhead: ReadonlyArray<{ id: string; name: string; scenario: Pick<Scenario, "workers"> }>;
}

/** Whether a worker is held by a run in progress (a run that ended frees it, whatever its state says). */
export function heldBy(info: WorkerInfo, active: ReadonlyMap<string, unknown>): string | null {
  return info.runId !== null && active.has(info.runId) ? info.runId : null;
}

/**
 * Whether a run may start now, or why it must wait (null: it may). A run waits only for its own
 * workers: when a run in progress holds some of the workers its selector matches and too few of
 * the others are left, or when a run queued ahead of it wants any of the same workers (first
 * come, first served within a pool). Runs on disjoint pools never wait for each other.
 */
export function admission(scenario: Pick<Scenario, "workers">, state: AdmissionState): string | null {
  const mine = state.workers.filter((w) => wants(scenario, w.info));
  const holders = new Set(mine.map((w) => heldBy(w.info, state.active)).filter((id) => id !== null));
  const free = mine.filter((w) => heldBy(w.info, state.active) === null).length;
  const held = holders.size > 0 && free < (scenario.workers?.count ?? 1);
  const ahead = state.queuedAhead.filter((queued) => mine.some((w) => wants(queued.scenario, w.info)));
  if (!held && ahead.length === 0) return null;
  const howToWait = 'stop it, wait for it to end, or queue this run behind it ("queue": true)';
  if (!held) {
    return `run "${ahead[0].name}" (${ahead[0].id}) is queued ahead of it for the same workers: wait for it, or queue this run behind it ("queue": true)`;
  }
  const runs = [...holders].map((id) => `run "${state.active.get(id)?.name}" (${id})`).join(" and ");
  const selector = scenario.workers?.selector ?? {};
  const which = Object.keys(selector).length ? ` matching ${selectorText(selector)}` : "";
  const queued = ahead.length ? ` and ${ahead.length} queued run(s) wait for them` : "";
  return `${runs} ${holders.size === 1 ? "is" : "are"} in progress on the workers${which}${queued}: ${howToWait}`;
}

function wants(scenario: Pick<Scenario, "workers">, info: WorkerInfo): boolean {
  return labelsMatch(info.labels, scenario.workers?.selector ?? {});
}
