import { describe, expect, it } from "vitest";
import { RUN_METRICS } from "./run-metrics.js";

// The OpenTelemetry → Prometheus translation a collector applies: dots become underscores, a
// unit in braces is dropped, "s" adds "_seconds", and a counter ends in "_total".
function prometheusNameOf(metric: { otlp: string; unit: string; kind: string }): string {
  let name = metric.otlp.replace(/\./g, "_");
  if (metric.unit === "s") name += "_seconds";
  if (metric.kind === "counter") name += "_total";
  return name;
}

describe("RUN_METRICS", () => {
  it("names each figure so that a collector's Prometheus export gives the master's own name", () => {
    for (const metric of Object.values(RUN_METRICS)) expect(prometheusNameOf(metric)).toBe(metric.prometheus);
  });
});
