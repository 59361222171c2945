import { type CapacityResult, type CapacitySearchConfig, capacityRates, formatMs } from "@volley/protocol";

type Judged = Omit<CapacityResult, "sentence">;

const percent = (ratio: number) => `${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1)} %`;
const latency = (ms: number | null) => (ms === null ? "no answers" : formatMs(ms));

/**
 * The search's answer in one sentence, as the report opens with it: "Sustains 300 req/s with
 * p95 38.2 ms; at 400 req/s 12.0 % errors on cap (SLO errorRate <1%)."
 */
export function capacitySentence(result: Judged, load: CapacitySearchConfig, unit: string): string {
  const { steps, request } = result;
  const on = request ? ` on ${request}` : "";
  const sustained = steps.find((s) => s.rate === result.sustainedRate && s.ok);
  const holds = sustained
    ? `Sustains ${sustained.rate} ${unit} with p95 ${latency(sustained.p95)}${on}`
    : `Not even the first step (${steps[0]?.rate ?? load.startRate} ${unit}) met the SLO`;
  if (result.searching) {
    return steps.length
      ? `Searching: ${steps.length} of at most ${capacityRates(load).length} steps judged; ${holds.charAt(0).toLowerCase()}${holds.slice(1)} so far.`
      : "Searching: no step judged yet.";
  }
  if (result.limitedBy === "maxRate") {
    return `${holds}, the highest rate tried (maxRate): the capacity is above it.`;
  }
  if (result.limitedBy === "stopped") {
    return `Stopped before a step broke the SLO. ${holds}.`;
  }
  const breaking = steps.find((s) => s.rate === result.breakingRate && !s.ok && !s.noise);
  if (!breaking) return `${holds}.`;
  const at = `at ${breaking.rate} ${unit}`;
  switch (breaking.failedOn) {
    case "noData":
      return `${holds}; ${at} nothing was measured${on} (no answer in the step): the generator or the network failed, not the SLO.`;
    case "maxVus":
      return `${holds}; ${at} the generator ran out of VUs (maxVus ${load.maxVus}, ${breaking.dropped} iterations dropped): a limit of this test, not of the system. Raise maxVus to search further.`;
    case "errorRate":
      return `${holds}; ${at} ${percent(breaking.errorRate)} errors${on} (SLO errorRate ${load.slo.errorRate}).`;
    case "p99":
      return `${holds}; ${at} p99 ${latency(breaking.p99)}${on} (SLO p99 ${load.slo.p99}).`;
    default:
      return `${holds}; ${at} p95 ${latency(breaking.p95)}${on} (SLO p95 ${load.slo.p95}).`;
  }
}
