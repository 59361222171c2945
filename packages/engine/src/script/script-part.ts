import type { Scenario, ScenarioPart } from "@volley/protocol";
import type { FeederSet } from "../feeders/feeder.js";
import { basicAuthorization } from "../http/basic-auth.js";
import { httpTarget } from "../scenario/compiled-request.js";
import type { VuFactory } from "../vu/engine-vu.js";
import type { LoadedScript } from "./load-scripts.js";
import { NotAwaitedLog } from "./not-awaited-log.js";
import type { ScriptHttpSettings } from "./script-http.js";
import type { ScriptMetrics } from "./script-metrics.js";
import { ScriptedVu } from "./scripted-vu.js";

/** What a thread's scripted parts share: HTTP through its pools, its feeders, the run's env. */
export interface ScriptThread {
  scenario: Scenario;
  http: ScriptHttpSettings;
  worker: string;
  env: Record<string, string>;
  feeders: FeederSet;
  scripts: Record<string, LoadedScript>;
  /** The thread's custom metrics, shared by every part's VUs (metric names are the run's). */
  metrics: ScriptMetrics;
}

/** Makes the VUs of a scripted part: each runs the part's script with the thread's HTTP and data. */
export function scriptedVus(part: ScenarioPart & { script: string }, thread: ScriptThread): VuFactory {
  const script = thread.scripts[part.script];
  if (!script) throw new Error(`script ${part.script} was not loaded`);
  const { scenario } = thread;
  const context = {
    script,
    http: thread.http,
    worker: thread.worker,
    env: thread.env,
    feeders: thread.feeders,
    // The top-level feeders, and the part's own.
    feederNames: Object.keys(scenario.data).filter((name) => {
      const owner = scenario.feederScenarios[name];
      return owner === undefined || owner === part.name;
    }),
    cookies: scenario.http.cookies,
    cookieReset: scenario.http.cookieReset,
    maxInFlight: scenario.http.maxConnectionsPerVu,
    notAwaited: new NotAwaitedLog(thread.http.recorders, script.frameRoot),
    metrics: thread.metrics,
  };
  return (number, index) => new ScriptedVu(number, index, context);
}

/** The HTTP settings scripted VUs of a scenario use (the target's parts read once). */
export function scriptTarget(scenario: Scenario): ScriptHttpSettings["target"] {
  const target = new URL(httpTarget(scenario.target));
  return {
    origin: target.origin,
    prefix: target.pathname.replace(/\/$/, ""),
    host: target.host,
    https: target.protocol === "https:",
    authorization: basicAuthorization(target),
  };
}
