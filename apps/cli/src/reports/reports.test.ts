import { formatQuantity, type RunDetail } from "@volley/protocol";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { formatSummaryTable } from "../summary-table.js";
import { junitReport } from "./junit.js";
import { summaryMarkdown } from "./summary-markdown.js";

const latency = { min: 1, mean: 20, max: 300, p50: 12, p75: 20, p90: 40, p95: 51.8, p99: 120, p999: 280 };
const run = {
  id: "0mx-run",
  name: 'checkout <"&"> | api',
  status: "finished",
  createdAt: "2026-11-30T12:00:00.000Z",
  startedAt: "2026-11-30T12:00:01.000Z",
  stopReason: null,
  error: null,
  passed: false,
  thresholds: [
    { key: "p95", expression: "<200ms", actual: 51.8, pass: true },
    { key: "errorRate", expression: "<1%", actual: 0.0335, pass: false },
  ],
  summary: {
    durationS: 30,
    total: {
      requests: 12_000,
      failures: 402,
      dropped: 0,
      rps: 400,
      bytesIn: 0,
      bytesOut: 0,
      latencyMs: latency,
    },
    requests: [
      {
        name: "login",
        method: "POST",
        requests: 12_000,
        failures: 402,
        dropped: 0,
        rps: 400,
        bytesIn: 0,
        bytesOut: 0,
        latencyMs: latency,
      },
    ],
    checks: [
      { name: "logged in", passes: 11_598, fails: 402 },
      { name: "has token", passes: 12_000, fails: 0 },
    ],
    statusCodes: {},
    errors: [],
  },
  trust: {
    verdict: "degraded",
    reasons: [{ kind: "saturated", message: "w1 was saturated from 3 s to 9 s | CPU 99 %" }],
  },
} as unknown as RunDetail;

describe("CI outputs of volley run", () => {
  it("JUnit: one testsuite, a testcase per threshold and check, failures with actual vs limit", () => {
    const xml = junitReport(run);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
    const suite = parsed.testsuites.testsuite;
    expect(suite).toMatchObject({ name: 'checkout <"&"> | api', tests: "4", failures: "2", errors: "0" });
    const cases = suite.testcase as Array<{ name: string; failure?: { message: string } }>;
    expect(cases.map((c) => c.name)).toEqual(["p95 <200ms", "errorRate <1%", "logged in", "has token"]);
    expect(cases[1].failure?.message).toBe("errorRate <1%: actual 3.35 %");
    expect(cases[2].failure?.message).toBe("402 of 12000 failed");
    expect(cases[0].failure).toBeUndefined();
    const properties = Object.fromEntries(
      (suite.properties.property as Array<{ name: string; value: string }>).map((p) => [p.name, p.value]),
    );
    expect(properties).toMatchObject({ trust: "degraded", requests: "12000", p95_ms: "51.8" });
  });

  it("Markdown: verdicts first, thresholds in their units, a table per request, checks; pipes escaped", () => {
    const md = summaryMarkdown(run);
    expect(md.split("\n").slice(0, 3)).toEqual([
      '## Volley: checkout <"&"> \\| api',
      "",
      "finished · **thresholds failed** · figures **degraded** · 12,000 requests in 30.0 s · run `0mx-run`",
    ]);
    expect(md).toContain("- w1 was saturated from 3 s to 9 s \\| CPU 99 %");
    expect(md).toContain("| `errorRate` | <1% | 3.35 % | ❌ |");
    expect(md).toContain("| `p95` | <200ms | 51.8 ms | ✅ |");
    expect(md).toContain("| POST login | 12,000 | 402 | 400.0 | 12.0 ms | 51.8 ms | 120 ms | 300 ms |");
    expect(md).toContain("| logged in | 11598 | 402 | 96.65 % |");
  });
});

describe("the terminal summary", () => {
  it("separates thousands, and gives no rate for under a second of load", () => {
    const table = formatSummaryTable(run);
    expect(table).toContain("12,000");
    expect(table.split("\n")[2]).toMatch(/POST login\s+12,000\s+402\s+400\.0/);
    const single = {
      ...run,
      summary: {
        ...run.summary,
        durationS: 0.01,
        total: { ...run.summary.total, requests: 1, failures: 0, rps: 87 },
        requests: [{ ...run.summary.requests[0], requests: 1, failures: 0, rps: 87 }],
      },
    } as RunDetail;
    expect(formatSummaryTable(single).split("\n")[2]).toMatch(/POST login\s+1\s+0\s+–/);
  });

  it("says one request in the singular", () => {
    expect(formatQuantity(1, "request")).toBe("1 request");
    expect(formatQuantity(12_000, "request")).toBe("12,000 requests");
  });
});
