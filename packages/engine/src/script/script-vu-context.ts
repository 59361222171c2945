import type { FeederSet } from "../feeders/feeder.js";
import type { LoadedScript } from "./load-scripts.js";
import type { NotAwaitedLog } from "./not-awaited-log.js";
import type { ScriptHttpSettings } from "./script-http.js";
import type { ScriptMetrics } from "./script-metrics.js";

/** What the scripted VUs of one part share. */
export interface ScriptVuContext {
  script: LoadedScript;
  http: ScriptHttpSettings;
  worker: string;
  env: Record<string, string>;
  feeders: FeederSet;
  /** Feeders this part may read (by name, within `feeders`). */
  feederNames: readonly string[];
  cookies: boolean;
  /** When a VU's jar is emptied: never ("vu"), or at each iteration. */
  cookieReset: "vu" | "iteration";
  /** Requests one VU may have in flight at once (http.maxConnectionsPerVu). */
  maxInFlight: number;
  notAwaited: NotAwaitedLog;
  metrics: ScriptMetrics;
}
