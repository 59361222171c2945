import {
  checkNames,
  iterationStatsName,
  type RunSummary,
  requestName,
  type Scenario,
  scenarioNames,
  scopedName,
  skippedStatsName,
  unscopedName,
} from "@volley/protocol";
import type { StatsAggregate } from "@volley/stats";

/**
 * What the scenario adds to merged statistics: each request's flow and scenario, each scenario's
 * totals, the checks. One function for the live summary, the stored report and thresholds.
 */
export function describeSummary(summary: RunSummary, scenario: Scenario, stats: StatsAggregate): RunSummary {
  return withChecks(withScenarios(withScopes(summary, scenario), scenario, stats), scenario);
}

/** Totals of each of `scenarios:`, from the merged statistics of its requests. */
function withScenarios(summary: RunSummary, scenario: Scenario, stats: StatsAggregate): RunSummary {
  const parts = scenarioNames(scenario);
  if (parts.length === 0) return summary;
  const names = stats.list().map((aggregate) => aggregate.name);
  const scenarios = parts.map((part) => ({
    name: part,
    ...stats.totalsOf(
      names.filter((name) => unscopedName(name, parts).scenario === part),
      summary.durationS,
    ),
    ...stats.iterationTotals([iterationStatsName(part), skippedStatsName(part)]),
  }));
  return { ...summary, scenarios };
}

/**
 * Each request and group under its own name with its scenario (statistics of `scenarios:` are kept
 * under scoped names: see scoped-names.ts), and each declarative request's flow.
 */
function withScopes(summary: RunSummary, scenario: Scenario): RunSummary {
  const partNames = scenario.parts.map((part) => part.name);
  if (partNames.every((name) => name === null) && !scenario.requestFlows.some(Boolean)) return summary;
  const flows = new Map(
    scenario.requests.flatMap((r, i) => {
      const flow = scenario.requestFlows[i];
      return flow ? [[requestName(r), flow] as const] : [];
    }),
  );
  const scoped = <T extends { name: string }>(r: T): T => {
    const flow = flows.get(r.name);
    return { ...r, ...unscopedName(r.name, partNames), ...(flow ? { flow } : {}) };
  };
  return {
    ...summary,
    requests: summary.requests.map(scoped),
    ...(summary.groups ? { groups: summary.groups.map(scoped) } : {}),
  };
}

/** Each request with `expect` as a check: passes are its answers that met every expectation. */
function withChecks(summary: RunSummary, scenario: Scenario): RunSummary {
  const names = checkNames(scenario);
  // A script's checks (vu.check) are summarised with the statistics already.
  if (names.length === 0) return summary;
  const byName = new Map(summary.requests.map((r) => [scopedName(r.scenario, r.name), r]));
  const checks = names.map((name) => {
    const request = byName.get(name);
    // Redirect hops are requests, not answers: a chain is judged once, on its final answer.
    const passes = request ? request.requests - request.failures - (request.redirects ?? 0) : 0;
    return { name, passes, fails: request?.failures ?? 0 };
  });
  return { ...summary, checks: [...checks, ...(summary.checks ?? [])] };
}
