import { CallSiteNames } from "./call-site.js";
import type { ScriptRecorders } from "./script-recorders.js";
import type { ScriptRequest } from "./script-request.js";

/**
 * Requests a script started and did not await before its iteration's function returned (k6's
 * http is synchronous: the first thing a k6 user writes). Each is still answered and counted
 * as a request; here it is also counted by where the script made it, for the report's
 * `not-awaited` warning. Finding the place costs a structured stack per request (call-site.ts),
 * so requests keep theirs only once the script was seen doing it: the count is exact from the
 * first, the place known from the next iteration that does it.
 */
export class NotAwaitedLog {
  /** Whether new requests keep their call site. */
  locating = false;
  private readonly names: CallSiteNames;

  constructor(
    private readonly recorders: ScriptRecorders,
    /** Where the script's own stack frames start (see LoadedScript). */
    frameRoot: string,
  ) {
    this.names = new CallSiteNames(frameRoot);
  }

  /** The iteration's function returned with these requests still in flight. */
  report(requests: Iterable<ScriptRequest>): void {
    this.locating = true;
    for (const request of requests) {
      // "flow.ts:12": the script's file and line, each place mapped once.
      const at = request.callSite === null ? "" : this.names.nameOf(request.callSite);
      this.recorders.notAwaited(at).record(0, 0, 0, 0);
    }
  }
}
