import { describe, expect, it } from "vitest";
import { otlpHeaders } from "./otlp-exemplars.js";

describe("otlpHeaders", () => {
  it("reads OpenTelemetry's header variables, percent-decoded, the metrics ones winning", () => {
    expect(
      otlpHeaders({
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20a, x-team = perf,broken,=x,bad=%E0%A4%A",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: "authorization=Bearer%20b",
      }),
    ).toEqual({ authorization: "Bearer b", "x-team": "perf" });
    expect(otlpHeaders({})).toEqual({});
  });
});
