import {
  EXECUTOR_CAPABILITIES,
  type LoadChange,
  type LoadChangeRecord,
  type LoadConfig,
  type LoadPatch,
  MAX_LOAD_CHANGES,
  MAX_VUS_PER_THREAD,
  peakVus,
  peakVusField,
  plannedDurationMs,
  recordedAt,
  ValidationError,
  VolleyError,
  VU_HEADROOM,
  vuCeiling,
} from "@volley/protocol";
import type { ActiveRun } from "./active-run.js";

/**
 * How far ahead of now a change takes effect: every worker gets the message before that moment,
 * so all threads switch at the same point of the run and an arrival rate stays one schedule.
 */
export const LOAD_CHANGE_LEAD_MS = 200;

/** The knob each executor has, or why it has none. */
function knobOf(load: LoadConfig): "vus" | "rate" | string {
  const capabilities = EXECUTOR_CAPABILITIES[load.executor];
  return capabilities.knob ?? (capabilities.fixedBecause as string);
}

/** The end (ms since the start) of the ramp stage running at `atMs`; null for a constant load. */
function stageEnd(load: LoadConfig, atMs: number): number | null {
  if (load.executor !== "ramping-vus" && load.executor !== "ramping-arrival-rate") return null;
  let end = 0;
  for (const stage of load.stages) {
    end += stage.duration;
    if (atMs < end) return end;
  }
  return null;
}

/**
 * Checks a `PATCH /api/runs/:id/load` against the running run and turns it into the change the
 * workers apply: the part it names, the moment it starts, how long it holds (to the end of the
 * current stage for a ramp, else to the end of the load).
 */
export function planLoadChange(
  active: ActiveRun,
  patch: LoadPatch,
  changesSoFar: number,
  now: number,
): { change: LoadChange; record: LoadChangeRecord } {
  const { parts } = active.scenario;
  const names = parts.map((p) => p.name).filter((n): n is string => n !== null);
  let part = 0;
  if (patch.scenario !== undefined) {
    part = parts.findIndex((p) => p.name === patch.scenario);
    if (part < 0) {
      const known = names.length ? `: it has ${names.join(", ")}` : ": it has no scenarios:";
      throw new ValidationError("request body", [
        { path: "scenario", message: `this run has no scenario "${patch.scenario}"${known}` },
      ]);
    }
  } else if (parts.length > 1) {
    throw new ValidationError("request body", [
      { path: "scenario", message: `this run has several scenarios (${names.join(", ")}): name one` },
    ]);
  }
  const { load } = parts[part];
  const knob = knobOf(load);
  const asked = patch.vus !== undefined ? "vus" : "rate";
  if (knob !== "vus" && knob !== "rate")
    throw new ValidationError("request body", [{ path: asked, message: knob }]);
  if (knob !== asked) {
    const takes = knob === "vus" ? "vus (VUs)" : "rate (iterations per second)";
    throw new ValidationError("request body", [
      { path: asked, message: `${load.executor} takes ${takes}, not ${asked}` },
    ]);
  }
  if (patch.vus !== undefined && patch.vus > vuCeiling(load)) {
    const why =
      peakVusField(load) === "load.maxVus"
        ? "the scenario's load.maxVus"
        : `${VU_HEADROOM}x the planned peak of ${peakVus(load)}, up to ${MAX_VUS_PER_THREAD.toLocaleString("en-US")}; set load.maxVus in the scenario to allow more`;
    throw new ValidationError("request body", [
      { path: "vus", message: `at most ${vuCeiling(load)} (${why})` },
    ]);
  }
  if (changesSoFar >= MAX_LOAD_CHANGES) {
    throw new ValidationError("request body", [
      { path: asked, message: `a run takes at most ${MAX_LOAD_CHANGES} load changes` },
    ]);
  }
  const atMs = Math.max(0, now - active.startAt) + LOAD_CHANGE_LEAD_MS;
  if (atMs >= plannedDurationMs(load)) {
    throw new VolleyError(
      "VOL_ERR_RUN_NOT_ACTIVE",
      "the run's load phase is over: there is no load left to change",
    );
  }
  const value = asked === "vus" ? { vus: patch.vus as number } : { rate: patch.rate as number };
  return {
    change: { part, ...value, atMs, untilMs: stageEnd(load, atMs) },
    record: {
      at: recordedAt(atMs),
      ...value,
      ...(parts[part].name !== null ? { scenario: parts[part].name as string } : {}),
    },
  };
}
