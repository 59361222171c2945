import { labelsMatch, type Scenario, selectorText, VolleyError, type WorkerInfo } from "@volley/protocol";
import type { WorkerEntry, WorkerRegistry } from "../workers/worker-registry.js";

/**
 * The workers a new run gets: the free ones (not `held` by another run) whose labels match its
 * `workers.selector`, `count` of them when it says (by name, so the choice is stable), every one
 * otherwise. Throws 409 naming the selector when too few are free.
 */
export async function selectRunWorkers(
  registry: WorkerRegistry,
  scenario: Pick<Scenario, "workers">,
  finishingWaitMs: number,
  held: (info: WorkerInfo) => boolean = () => false,
): Promise<WorkerEntry[]> {
  const selector = scenario.workers?.selector ?? {};
  const count = scenario.workers?.count;
  const matches = (info: WorkerInfo) => labelsMatch(info.labels, selector);
  // Workers another run holds are not finishing: waiting for them would only delay the refusal.
  const ready = await registry.readySoon(finishingWaitMs, (info) => matches(info) && !held(info));
  const wanted = count ?? 1;
  if (ready.length < wanted) {
    const all = registry.list().filter((w) => w.state !== "lost");
    const matching = all.filter(matches);
    const which = Object.keys(selector).length ? ` matching ${selectorText(selector)}` : "";
    throw new VolleyError(
      "VOL_ERR_NO_WORKERS",
      ready.length === 0 && all.length === 0
        ? "no worker is ready: start one with `volley worker --master URL`"
        : `the run needs ${wanted} free worker${wanted === 1 ? "" : "s"}${which}; ${ready.length} ${ready.length === 1 ? "is" : "are"} free (${matching.length} connected${which})`,
    );
  }
  return count === undefined ? ready : ready.slice(0, count);
}
