import { CallSiteNames } from "./call-site.js";
import type { ScriptRecorders } from "./script-recorders.js";
import type { ScriptRequest } from "./script-request.js";

/**
 * Requests a script started and did not await before its iteration's function returned (k6's
 * http is synchronous: the first thing a k6 user writes). Each is still answered and counted
 * as a request; here it is also counted by where the script made it, for the report's
 * `not-awaited` warning. The bundle stamps each `vu.http` call with its place (call-stamps), so
 * that is known from the first such request. A call the bundle could not see (an alias such as
 * `const fetch = vu.http.get`) is found by a structured stack instead (call-site.ts), which costs
 * microseconds a request: requests keep theirs only once the script was seen leaving such a call
 * unawaited, so its count is exact from the first, its place known from the next iteration.
 */
export class NotAwaitedLog {
  /** Whether new requests capture their call site from the stack. */
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
    for (const request of requests) {
      let at = request.place;
      if (at === null) {
        if (request.callSite !== null) at = this.names.nameOf(request.callSite);
        else {
          at = "";
          this.locating = true;
        }
      }
      this.recorders.notAwaited(at).record(0, 0, 0, 0);
    }
  }
}
