import { MAX_RATE, MAX_VUS } from "@volley/protocol";
import { intFlag } from "./args.js";
import { UsageError } from "./cli-error.js";

/**
 * k6's command-line habits on `volley run`: `--vus 50 --duration 1m`, `--iterations 100`,
 * `--rate 200`, `--target URL`, `-e KEY=VALUE`. They change the scenario as written, before it is
 * validated; a field they set that the scenario refuses is named by its flag (see flagOfIssue).
 */
export const OVERRIDE_FLAGS = {
  vus: { type: "string" },
  duration: { type: "string" },
  iterations: { type: "string" },
  rate: { type: "string" },
  target: { type: "string" },
  env: { type: "string", short: "e", multiple: true },
} as const;

export interface OverrideValues {
  vus?: string;
  duration?: string;
  iterations?: string;
  rate?: string;
  target?: string;
  env?: string[];
}

export interface Overrides {
  /** The scenario as written with the flags applied (as written when it is not an object). */
  input: unknown;
  /** `-e` values, by name (they win over the shell's). */
  env: Record<string, string>;
  /** What the flags changed, for a line before the run starts; empty when none were given. */
  said: string[];
  /** The scenario fields the flags set, to name a refused one by its flag. */
  flags: Map<string, string>;
}

type Load = Record<string, unknown>;

const ENV_RE = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
const RATE_RE = /^\d+(\.\d+)?$/;

export function applyOverrides(written: unknown, values: OverrideValues): Overrides {
  const flags = new Map<string, string>();
  const said: string[] = [];
  // Not a scenario at all: validation says so, in the scenario's terms.
  if (typeof written !== "object" || written === null || Array.isArray(written))
    return { input: written, env: {}, said, flags };
  const input = { ...(written as Record<string, unknown>) };
  const vus = intFlag("vus", values.vus, 1, MAX_VUS);
  const iterations = intFlag("iterations", values.iterations, 1, 1_000_000_000);
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (rate !== undefined && (!RATE_RE.test(values.rate ?? "") || rate <= 0 || rate > MAX_RATE)) {
    throw new UsageError(
      `--rate: expected iterations per second above 0, at most ${MAX_RATE}, got "${values.rate}"`,
    );
  }
  const duration = values.duration;
  if (vus !== undefined || iterations !== undefined || rate !== undefined || duration !== undefined) {
    const given = ["vus", "duration", "iterations", "rate"].filter((f) => values[f as keyof OverrideValues]);
    if (input.scenarios !== undefined) {
      throw new UsageError(
        `--${given[0]}: the scenario has several loads (scenarios:); the load flags replace a single load`,
      );
    }
    const load = overriddenLoad((input.load ?? {}) as Load, { vus, iterations, rate, duration });
    input.load = load;
    for (const field of Object.keys(load)) {
      const flag = FLAG_OF_LOAD_FIELD[field];
      if (flag && given.includes(flag)) flags.set(`load.${field}`, `--${flag}`);
    }
    flags.set("load", `--${given[0]}`);
    said.push(`load ${JSON.stringify(load)}`);
  }
  if (values.target !== undefined) {
    input.target = values.target;
    flags.set("target", "--target");
    said.push(`target ${values.target}`);
  }
  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const match = ENV_RE.exec(pair);
    if (!match)
      throw new UsageError(`-e: expected KEY=VALUE (KEY a variable name), got "${pair.slice(0, 80)}"`);
    env[match[1]] = match[2];
  }
  if (Object.keys(env).length) {
    const names = Array.isArray(input.env) ? (input.env as unknown[]) : [];
    input.env = [...names, ...Object.keys(env).filter((name) => !names.includes(name))];
    flags.set("env", "-e");
    said.push(`env ${Object.keys(env).join(", ")}`);
  }
  return { input, env, said, flags };
}

const FLAG_OF_LOAD_FIELD: Record<string, string> = {
  vus: "vus",
  maxVus: "vus",
  duration: "duration",
  maxDuration: "duration",
  iterations: "iterations",
  rate: "rate",
};

/** Executors whose fields the flags adjust in place; any other load is replaced by theirs. */
const ADJUSTABLE = new Set([
  "constant-vus",
  "per-vu-iterations",
  "shared-iterations",
  "constant-arrival-rate",
]);

/**
 * The load the flags ask for, as k6 reads them: `--rate` an arrival rate for `--duration` (VUs
 * up to `--vus`), `--iterations` shared by `--vus` VUs (1 by default; `--duration` their longest),
 * `--vus`/`--duration` alone the scenario's load with those changed (a ramp or search becomes
 * constant VUs). What the flags leave out comes from the scenario's load, or is asked for.
 */
function overriddenLoad(
  old: Load,
  flags: { vus?: number; iterations?: number; rate?: number; duration?: string },
): Load {
  const { vus, iterations, rate, duration } = flags;
  const kept = old.gracefulStop === undefined ? {} : { gracefulStop: old.gracefulStop };
  if (rate !== undefined && iterations !== undefined) {
    throw new UsageError("--rate and --iterations: give one (a rate runs for a duration)");
  }
  if (rate !== undefined) {
    const length = duration ?? old.duration;
    if (length === undefined)
      throw new UsageError("--rate: give --duration too (the scenario's load has none)");
    const maxVus = vus ?? old.maxVus ?? old.vus;
    if (maxVus === undefined)
      throw new UsageError("--rate: give --vus too (the most VUs the rate may keep busy)");
    return { executor: "constant-arrival-rate", rate, duration: length, maxVus, ...kept };
  }
  if (iterations !== undefined) {
    const maxDuration = duration ?? old.maxDuration;
    return {
      executor: "shared-iterations",
      vus:
        vus ?? (old.executor === "shared-iterations" || old.executor === "per-vu-iterations" ? old.vus : 1),
      iterations,
      ...(maxDuration === undefined ? {} : { maxDuration }),
      ...kept,
    };
  }
  const executor = String(old.executor ?? "");
  if (!ADJUSTABLE.has(executor)) {
    if (vus === undefined || duration === undefined) {
      const missing = vus === undefined ? "--vus" : "--duration";
      throw new UsageError(
        `${missing}: give --vus and --duration together to replace the scenario's ${executor || "load"} with constant VUs`,
      );
    }
    return { executor: "constant-vus", vus, duration, ...kept };
  }
  const load: Load = { ...old };
  if (executor === "constant-arrival-rate") {
    if (vus !== undefined) load.maxVus = vus;
    if (duration !== undefined) load.duration = duration;
    return load;
  }
  if (vus !== undefined) {
    load.vus = vus;
    // A headroom below the new VUs would refuse them: it goes, and the VUs are the peak.
    if (typeof load.maxVus === "number" && load.maxVus < vus) delete load.maxVus;
  }
  if (duration !== undefined) load[executor === "constant-vus" ? "duration" : "maxDuration"] = duration;
  return load;
}

/** The flag that set a refused field (an issue's path as "load.vus"), or undefined. */
export function flagOfIssue(flags: Map<string, string>, path: string): string | undefined {
  if (flags.has(path)) return flags.get(path);
  const top = path.split(".")[0];
  return top === "load" || top === "target" || top === "env" ? flags.get(top) : undefined;
}
