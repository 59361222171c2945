import { type RunDetail, type RunSummary, type Trust, trustOf } from "@volley/protocol";

/**
 * The run's verdict as the page shows it: while the run is live, judged again on the figures
 * merged so far (the report's own was judged when the page loaded, "0 requests in 0.0 s");
 * afterwards, the report's.
 */
export function trustNow(run: RunDetail, summary: RunSummary, live: boolean): Trust {
  return live ? trustOf({ ...run, summary }) : run.trust;
}
