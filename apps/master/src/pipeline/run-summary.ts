import {
  checkNames,
  iterationStatsName,
  type RunSummary,
  requestName,
  type Scenario,
  scenarioRequestNames,
  skippedStatsName,
} from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";

/**
 * What the scenario adds to merged statistics: each request's flow and scenario, each scenario's
 * totals, the checks. One function for the live summary, the stored report and thresholds.
 */
export function describeSummary(summary: RunSummary, scenario: Scenario, stats: StatsAggregate): RunSummary {
  return withChecks(withScenarios(withFlows(summary, scenario), scenario, stats), scenario);
}

/** Totals of each of `scenarios:`, from the merged statistics of its requests. */
function withScenarios(summary: RunSummary, scenario: Scenario, stats: StatsAggregate): RunSummary {
  const parts = scenarioRequestNames(scenario);
  if (parts.length === 0) return summary;
  const scenarios = parts.map((part) => ({
    name: part.name,
    ...stats.totalsOf(part.requests, summary.durationS),
    ...stats.iterationTotals([iterationStatsName(part.name), skippedStatsName(part.name)]),
  }));
  return { ...summary, scenarios };
}

/** Names each request's flow and scenario (of `scenarios:`), when it has them. */
function withFlows(summary: RunSummary, scenario: Scenario): RunSummary {
  const labelled = scenario.requests.flatMap((r, i) => {
    const flow = scenario.requestFlows[i] ?? undefined;
    const part = scenario.requestScenarios[i] ?? undefined;
    return flow || part ? [[requestName(r), { flow, scenario: part }] as const] : [];
  });
  if (labelled.length === 0) return summary;
  const labels = new Map(labelled);
  return { ...summary, requests: summary.requests.map((r) => ({ ...r, ...labels.get(r.name) })) };
}

/** Each request with `expect` as a check: passes are its answers that met every expectation. */
function withChecks(summary: RunSummary, scenario: Scenario): RunSummary {
  const names = checkNames(scenario);
  // A script's checks (vu.check) are summarised with the statistics already.
  if (names.length === 0) return summary;
  const byName = new Map(summary.requests.map((r) => [r.name, r]));
  const checks = names.map((name) => {
    const request = byName.get(name);
    // Redirect hops are requests, not answers: a chain is judged once, on its final answer.
    const passes = request ? request.requests - request.failures - (request.redirects ?? 0) : 0;
    return { name, passes, fails: request?.failures ?? 0 };
  });
  return { ...summary, checks: [...checks, ...(summary.checks ?? [])] };
}
