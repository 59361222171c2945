import { scriptFrame } from "./load-scripts.js";
import type { ScriptRecorders } from "./script-recorders.js";
import type { ScriptRequest } from "./script-request.js";

/**
 * Requests a script started and did not await before its iteration's function returned (k6's
 * http is synchronous: the first thing a k6 user writes). Each is still answered and counted
 * as a request; here it is also counted by where the script made it, for the report's
 * `not-awaited` warning. Finding the place costs a stack per request, so requests keep theirs
 * only once the script was seen doing it: the count is exact from the first, the place known
 * from the next iteration that does it.
 */
export class NotAwaitedLog {
  /** Whether new requests keep their call site. */
  locating = false;

  constructor(
    private readonly recorders: ScriptRecorders,
    /** Where the script's own stack frames start (see LoadedScript). */
    private readonly frameRoot: string,
  ) {}

  /** The iteration's function returned with these requests still in flight. */
  report(requests: Iterable<ScriptRequest>): void {
    this.locating = true;
    for (const request of requests) {
      const frame = request.callSite ? scriptFrame(request.callSite.stack ?? "", this.frameRoot) : null;
      // "flow.ts:12:7" → "flow.ts:12": the line is what a reader looks for.
      const at = frame === null ? "" : frame.replace(/:\d+$/, "");
      this.recorders.notAwaited(at).record(0, 0, 0, 0);
    }
  }
}
