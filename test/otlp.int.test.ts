import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// `--otlp`: the running run's metrics pushed as OTLP/HTTP JSON to a loopback receiver, decoded
// here as a collector would: counters during the run, the final counters once it has ended.

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}
interface OtlpPoint {
  attributes: OtlpAttribute[];
  asInt?: string | number;
  asDouble?: number;
  exemplars?: Array<{ traceId?: string; asInt?: string | number; timeUnixNano?: string }>;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  sum?: { dataPoints: OtlpPoint[]; isMonotonic?: boolean; aggregationTemporality?: number };
  gauge?: { dataPoints: OtlpPoint[] };
}
interface Push {
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  resource: Record<string, string>;
  metrics: OtlpMetric[];
}

let fleet: TestFleet;
let receiver: Server;
const pushes: Push[] = [];

const attrs = (list: OtlpAttribute[]) =>
  Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? JSON.stringify(a.value)]));
const value = (p: OtlpPoint) => Number(p.asInt ?? p.asDouble);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const decoded = JSON.parse(body);
      for (const rm of decoded.resourceMetrics ?? []) {
        pushes.push({
          path: req.url ?? "",
          contentType: req.headers["content-type"],
          authorization: req.headers.authorization,
          resource: attrs(rm.resource?.attributes ?? []),
          metrics: (rm.scopeMetrics ?? []).flatMap((sm: { metrics: OtlpMetric[] }) => sm.metrics),
        });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  // As for any OpenTelemetry exporter: headers from the environment (values percent-encoded).
  process.env.OTEL_EXPORTER_OTLP_HEADERS = "authorization=Bearer%20otlp-test";
  fleet = await startTestFleet({
    workers: 2,
    master: { otlpUrl: `http://127.0.0.1:${port}`, otlpIntervalMs: 500 },
  });
});
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
  await fleet?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Requests of one run by request name and status, summed over every point of a push. */
function requestsOf(push: Push, runId: string): Map<string, number> {
  const out = new Map<string, number>();
  const metric = push.metrics.find((m) => m.name === "volley.requests");
  for (const point of metric?.sum?.dataPoints ?? []) {
    const a = attrs(point.attributes);
    if (a.run !== runId) continue;
    out.set(`${a.request} ${a.status}`, value(point));
  }
  return out;
}

describe("OTLP push", () => {
  it("pushes the running run's counters, quantiles and VUs, then its final counters", async () => {
    const { master, target } = fleet;
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "otlp-pushed",
        target: target.url,
        load: { executor: "constant-vus", vus: 4, duration: "3s" },
        thinkTime: "20ms",
        requests: [
          { name: "hello", path: "/hello" },
          { name: "missing", path: "/status/404", expect: { status: 404 } },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.id as string;
    // During the run: cumulative request counters by status, and the gauges.
    await waitFor(() => pushes.some((p) => (requestsOf(p, runId).get("hello 200") ?? 0) > 0), {
      what: "an OTLP push during the run",
      timeoutMs: 10_000,
    });
    const during = pushes.find((p) => (requestsOf(p, runId).get("hello 200") ?? 0) > 0) as Push;
    expect(during.path).toBe("/v1/metrics");
    expect(during.contentType).toBe("application/json");
    expect(during.authorization).toBe("Bearer otlp-test");
    expect(during.resource["service.name"]).toBe("volley");
    const requests = during.metrics.find((m) => m.name === "volley.requests");
    expect(requests?.unit).toBe("{request}");
    expect(requests?.sum?.isMonotonic).toBe(true);
    const duration = during.metrics.find((m) => m.name === "volley.request.duration");
    expect(duration?.unit).toBe("s");
    const quantiles = (duration?.gauge?.dataPoints ?? []).map((p) => attrs(p.attributes).quantile);
    expect(new Set(quantiles)).toEqual(new Set(["0.5", "0.95", "0.99"]));
    // The VUs come with the run's first closed second, which a push may precede: some push while
    // the run goes carries them (a finished run's final push says 0).
    const vusOf = (p: Push) => p.metrics.find((m) => m.name === "volley.vus")?.gauge?.dataPoints ?? [];
    await waitFor(
      () => pushes.some((p) => vusOf(p).some((pt) => attrs(pt.attributes).run === runId && value(pt) > 0)),
      { what: "an OTLP push with the run's VUs", timeoutMs: 10_000 },
    );

    const run = await waitForRunEnd<RunDetail>(master.url, runId, 30_000);
    expect(run.status).toBe("finished");
    expect(run.workers.filter((w) => w.requests > 0)).toHaveLength(2);
    // After the end: one push holds the final counters, equal to the report and the target.
    const byName = Object.fromEntries(run.summary.requests.map((r) => [r.name, r.requests]));
    const final = () =>
      pushes.find((p) => {
        const counts = requestsOf(p, runId);
        return counts.get("hello 200") === byName.hello && counts.get("missing 404") === byName.missing;
      });
    await waitFor(() => final() !== undefined, { what: "the final OTLP push", timeoutMs: 10_000 });
    expect(byName.hello + byName.missing).toBe(target.total());
    const failures = final()?.metrics.find((m) => m.name === "volley.request.failures");
    const failed = (failures?.sum?.dataPoints ?? []).filter((p) => attrs(p.attributes).run === runId);
    expect(failed.map(value)).toEqual([0, 0]);
    // Nothing more is said about the run once its final push is made: every push of it comes
    // before the next run's first, and its last one is the final one (its VUs 0).
    const next = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "otlp-next",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
        requests: [{ name: "hello", path: "/hello" }],
      },
    });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    const nextId = next.body.id as string;
    await waitForRunEnd(master.url, nextId, 30_000);
    await waitFor(() => pushes.some((p) => requestsOf(p, nextId).get("hello 200") === 3), {
      what: "the next run's final OTLP push",
      timeoutMs: 10_000,
    });
    const ofRun = pushes.flatMap((p, i) => (requestsOf(p, runId).size > 0 ? [i] : []));
    const firstOfNext = pushes.findIndex((p) => requestsOf(p, nextId).size > 0);
    expect(ofRun.at(-1)).toBeLessThan(firstOfNext);
    const last = pushes[ofRun.at(-1) as number] as Push;
    expect(Object.fromEntries(requestsOf(last, runId))).toEqual({
      "hello 200": byName.hello,
      "missing 404": byName.missing,
    });
    expect(vusOf(last).map(value)).toEqual([0]);
  });

  it("gives a traced run's request series its slowest trace as an exemplar, one the target received", async () => {
    const { master, target } = fleet;
    target.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "otlp-traced",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
        http: { tracing: { propagate: "w3c", sample: 1 } },
        requests: [{ name: "traced", path: "/slow?ms=20" }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.id as string;
    await waitForRunEnd(master.url, runId, 30_000);
    const tracedPoint = () =>
      pushes
        .flatMap((p) => p.metrics.filter((m) => m.name === "volley.requests"))
        .flatMap((m) => m.sum?.dataPoints ?? [])
        .find(
          (pt) =>
            attrs(pt.attributes).run === runId && attrs(pt.attributes).request === "traced" && pt.exemplars,
        );
    await waitFor(() => tracedPoint() !== undefined, {
      what: "an OTLP point with an exemplar",
      timeoutMs: 10_000,
    });
    const [exemplar] = tracedPoint()?.exemplars ?? [];
    expect(exemplar?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(exemplar?.asInt)).toBe(1);
    const sent = target.log.map((e) => String(e.headers.traceparent).split("-")[1]);
    expect(sent).toHaveLength(10);
    expect(sent).toContain(exemplar?.traceId);
  });

  it("a receiver that is down costs the run nothing: it finishes, counted exactly", async () => {
    const down = await startTestFleet({
      master: { otlpUrl: "http://127.0.0.1:9/v1/metrics", otlpIntervalMs: 200 },
    });
    try {
      const created = await sendJson("POST", `${down.master.url}/api/runs`, {
        scenario: {
          name: "otlp-down",
          target: down.target.url,
          load: { executor: "per-vu-iterations", vus: 2, iterations: 50 },
          requests: [{ path: "/hello" }],
        },
      });
      expect(created.status).toBe(201);
      const run = await waitForRunEnd<RunDetail>(down.master.url, created.body.id as string, 30_000);
      expect(run.status).toBe("finished");
      expect(run.summary.total.requests).toBe(100);
      expect(down.target.total()).toBe(100);
    } finally {
      await down.close();
    }
  });
});
