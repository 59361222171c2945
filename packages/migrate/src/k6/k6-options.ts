import { k6ThresholdEntries } from "@volley/protocol";
import { field } from "../fields.js";

/** What k6's `options` become in a scenario: the load (or parts), thresholds and HTTP settings. */
export interface ConvertedOptions {
  load?: Record<string, unknown>;
  /** `options.scenarios`: each part's load and the function it runs (k6's `exec`, default "default"). */
  parts?: Array<{ name: string; load: Record<string, unknown>; exec: string }>;
  thresholds: Record<string, unknown>;
  http: Record<string, unknown>;
  notes: string[];
}

/** Fields of options that change nothing a Volley run measures, or that Volley does by itself. */
const HARMLESS = new Set([
  "summaryTrendStats",
  "summaryTimeUnit",
  "noUsageReport",
  "tags",
  "setupTimeout",
  "teardownTimeout",
  "cloud",
  "ext",
]);

/** k6's `options` (read statically) as a scenario's load, thresholds and http settings. */
export function convertOptions(
  options: Record<string, unknown>,
  renamed: ReadonlyMap<string, string>,
): ConvertedOptions {
  const notes: string[] = [];
  const out: ConvertedOptions = { thresholds: {}, http: {}, notes };
  const scenarios = field(options, "scenarios");
  if (typeof scenarios === "object" && scenarios !== null) {
    out.parts = Object.entries(scenarios).map(([name, scenario]) => ({
      name,
      load: executorLoad(name, scenario as Record<string, unknown>, notes),
      exec: String(field(scenario, "exec") ?? "default"),
    }));
  } else {
    out.load = shortcutLoad(options, notes);
  }
  const thresholds = field(options, "thresholds");
  if (typeof thresholds === "object" && thresholds !== null) {
    for (const [key, value] of Object.entries(thresholds)) {
      // A custom metric's name was made Volley's (`[a-z][a-z0-9_]*`) where the script declared it.
      const name = key.replace(/^[^{]+/, (metric) => renamed.get(metric) ?? metric);
      if (/\{\s*name\s*:[^}]*:\/\//.test(key)) {
        notes.push(
          `threshold ${key}: k6 names a request by its URL, Volley by METHOD path: give it tags.name and a threshold on that name`,
        );
        continue;
      }
      const entries = k6ThresholdEntries(name, value);
      if (entries === null) {
        notes.push(`threshold ${key}: ${JSON.stringify(value)} has no Volley equivalent: left out`);
        continue;
      }
      const list = Array.isArray(value) ? value : [value];
      entries.forEach((entry, i) => {
        if (out.thresholds[entry.key] !== undefined) {
          notes.push(
            `threshold ${key}: "${String(field(list[i], "threshold") ?? list[i])}" left out: Volley keeps one threshold per figure (${entry.key})`,
          );
          return;
        }
        const abort = field(list[i], "abortOnFail") === true;
        const delay = field(list[i], "delayAbortEval");
        out.thresholds[entry.key] = abort
          ? {
              threshold: entry.value,
              abortOnFail: true,
              ...(typeof delay === "string" ? { delayAbortEval: delay } : {}),
            }
          : entry.value;
      });
    }
  }
  if (options.insecureSkipTLSVerify === true) out.http.insecureTls = true;
  for (const key of Object.keys(options)) {
    if (
      [
        "scenarios",
        "thresholds",
        "vus",
        "duration",
        "iterations",
        "stages",
        "insecureSkipTLSVerify",
        "maxRedirects",
        "discardResponseBodies",
      ].includes(key)
    )
      continue;
    if (!HARMLESS.has(key)) notes.push(`options.${key} is not converted`);
  }
  return out;
}

function shortcutLoad(options: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  const vus = numberOr(options.vus, undefined);
  const stages = options.stages;
  if (Array.isArray(stages) && stages.length > 0) {
    return { executor: "ramping-vus", startVus: vus ?? 1, stages: stages.map(stage) };
  }
  if (options.iterations !== undefined) {
    const iterations = numberOr(options.iterations, 1) ?? 1;
    return {
      executor: "shared-iterations",
      vus: Math.min(vus ?? 1, iterations),
      iterations,
      ...(typeof options.duration === "string" ? { maxDuration: options.duration } : {}),
    };
  }
  if (typeof options.duration === "string")
    return { executor: "constant-vus", vus: vus ?? 1, duration: options.duration };
  if (vus !== undefined && vus > 1) notes.push("vus without a duration: k6 runs one iteration of each VU");
  // k6's default: one iteration of each VU.
  return { executor: "per-vu-iterations", vus: vus ?? 1, iterations: 1 };
}

function executorLoad(name: string, s: Record<string, unknown>, notes: string[]): Record<string, unknown> {
  const at = `options.scenarios.${name}`;
  const graceful = typeof s.gracefulStop === "string" ? { gracefulStop: s.gracefulStop } : {};
  for (const key of ["startTime", "env", "tags", "gracefulRampDown"])
    if (s[key] !== undefined) notes.push(`${at}.${key} is not converted`);
  const perSecond = (rate: unknown) => {
    const unit = typeof s.timeUnit === "string" ? parseSeconds(s.timeUnit) : 1;
    return Math.round(((numberOr(rate, 1) ?? 1) / unit) * 1000) / 1000;
  };
  const maxVus = numberOr(s.maxVUs, undefined) ?? numberOr(s.preAllocatedVUs, undefined) ?? 100;
  switch (s.executor) {
    case "constant-vus":
      return { executor: "constant-vus", vus: numberOr(s.vus, 1), duration: s.duration, ...graceful };
    case "ramping-vus":
      return {
        executor: "ramping-vus",
        startVus: numberOr(s.startVUs, 1),
        stages: (Array.isArray(s.stages) ? s.stages : []).map(stage),
        ...graceful,
      };
    case "per-vu-iterations":
      return {
        executor: "per-vu-iterations",
        vus: numberOr(s.vus, 1),
        iterations: numberOr(s.iterations, 1),
        ...(typeof s.maxDuration === "string" ? { maxDuration: s.maxDuration } : {}),
        ...graceful,
      };
    case "shared-iterations": {
      const iterations = numberOr(s.iterations, 1) ?? 1;
      return {
        executor: "shared-iterations",
        vus: Math.min(numberOr(s.vus, 1) ?? 1, iterations),
        iterations,
        ...(typeof s.maxDuration === "string" ? { maxDuration: s.maxDuration } : {}),
        ...graceful,
      };
    }
    case "constant-arrival-rate":
      return {
        executor: "constant-arrival-rate",
        rate: perSecond(s.rate),
        duration: s.duration,
        maxVus,
        ...graceful,
      };
    case "ramping-arrival-rate":
      return {
        executor: "ramping-arrival-rate",
        startRate: perSecond(s.startRate ?? 0),
        stages: (Array.isArray(s.stages) ? s.stages : []).map((st) => ({
          duration: field(st, "duration"),
          target: perSecond(field(st, "target")),
        })),
        maxVus,
        ...graceful,
      };
    default:
      notes.push(`${at}: the ${String(s.executor)} executor has no Volley equivalent: it runs one VU once`);
      return { executor: "per-vu-iterations", vus: 1, iterations: 1 };
  }
}

function stage(s: unknown) {
  return { duration: field(s, "duration"), target: numberOr(field(s, "target"), 0) };
}

function numberOr(value: unknown, fallback: number | undefined): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^\d+$/.test(value)) return Number(value);
  // Code (NOT_STATIC) or nothing: the converter names the code; the fallback runs meanwhile.
  return fallback;
}

/** "1m" → 60; k6's timeUnit. */
function parseSeconds(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) return 1;
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] as "ms" | "s" | "m" | "h"];
}
