import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { type StreamTestServer, startStreamServer } from "./support/stream-server.js";

// Streamed responses (SSE, NDJSON) over two workers against a server that counts the streams and
// events it sent and paces them: a first event at 100 ms, then one every 30 ms.
let fleet: TestFleet;
let server: StreamTestServer;
let master: RunningMaster;

beforeAll(async () => {
  [fleet, server] = await Promise.all([startTestFleet({ workers: 2, threads: 1 }), startStreamServer()]);
  ({ master } = fleet);
});
afterAll(async () => {
  await fleet?.close();
  await server?.close();
});

async function runScenario(scenario: Record<string, unknown>): Promise<RunDetail> {
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: { target: server.url, ...scenario },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
}

describe("streamed responses", () => {
  it("time the first byte, the first event and the gaps as the server paced them; events counted exactly", async () => {
    server.reset();
    const report = await runScenario({
      name: "streams",
      load: { executor: "per-vu-iterations", vus: 4, iterations: 3 },
      requests: [
        {
          name: "chat",
          method: "POST",
          path: "/sse?first=100&gap=30&events=5",
          json: { model: "m", stream: true },
          stream: { kind: "sse", until: "[DONE]" },
        },
        {
          name: "held",
          path: "/sse?first=10&gap=10&events=3&hold=1",
          stream: { kind: "sse", until: "[DONE]" },
        },
        { name: "ndjson", path: "/lines?first=20&gap=20&events=4", stream: { kind: "lines" } },
      ],
      thresholds: { "chat.stream.firstEventMs.p95": "<50", "chat.stream.gapMs.p50": "<200" },
    });
    expect(report.status).toBe("finished");
    const byName = new Map(report.summary.requests.map((r) => [r.name, r]));
    const chat = byName.get("chat");
    expect(server.counts.streams).toBe(36);
    expect(report.summary.total.requests).toBe(36);
    expect(report.summary.total.failures).toBe(0);
    expect(chat?.stream).toMatchObject({ events: 60, eventsPerStream: 5 });
    expect(byName.get("held")?.stream).toMatchObject({ events: 36, eventsPerStream: 3 });
    expect(byName.get("ndjson")?.stream).toMatchObject({ events: 48, eventsPerStream: 4 });
    expect(server.counts.events).toBe(60 + 36 + 48);
    const first = chat?.stream?.firstEventMs.p50 ?? 0;
    expect(first).toBeGreaterThanOrEqual(99);
    expect(first).toBeLessThan(200);
    const gap = chat?.stream?.gapMs.p50 ?? 0;
    expect(gap).toBeGreaterThanOrEqual(28);
    expect(gap).toBeLessThan(80);
    expect(chat?.stream?.firstByteMs.p50 ?? 1000).toBeLessThan(first);
    // The request itself lasts to the stream's end: 100 + 4 x 30 ms at least.
    expect(chat?.latencyMs.p50 ?? 0).toBeGreaterThanOrEqual(219);
    // `until` ended the held streams though the server kept them open.
    expect(byName.get("held")?.latencyMs.max ?? 10_000).toBeLessThan(1000);
    // Thresholds on the timings judge the run: a first event at 100 ms is not under 50.
    expect(report.thresholds).toEqual([
      expect.objectContaining({ key: "chat.stream.firstEventMs.p95", pass: false }),
      expect.objectContaining({ key: "chat.stream.gapMs.p50", pass: true }),
    ]);
    expect(report.passed).toBe(false);
    await waitFor(() => server.open === 0, { what: "every stream closed", timeoutMs: 5000 });
    const html = await (await fetch(`${master.url}/api/runs/${report.id}/report.html`)).text();
    expect(html).toContain("<h2>Streams</h2>");
    // Per second: the timings are stored with the run's seconds (exact windows read them).
    const window = await fetch(
      `${master.url}/api/runs/${report.id}/summary?from=0&to=${Math.ceil(report.summary.durationS)}`,
    );
    expect(window.status).toBe(200);
    const body = (await window.json()) as RunDetail["summary"];
    expect(body.requests.find((r) => r.name === "chat")?.stream?.events).toBe(60);
  });

  it("refuse a stream without kind, and a stream threshold on a request that does not stream, naming the field", async () => {
    const noKind = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "bad",
        target: server.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ name: "chat", path: "/sse", stream: {} }],
      },
    });
    expect(noKind.status).toBe(400);
    expect(noKind.body.details).toEqual([
      { path: "requests[0].stream.kind", message: 'kind must be "sse" or "lines"' },
    ]);
    const notStreamed = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "bad",
        target: server.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ name: "chat", path: "/sse" }],
        thresholds: { "chat.stream.firstEventMs.p95": "<500" },
      },
    });
    expect(notStreamed.status).toBe(400);
    expect(notStreamed.body.details?.[0]?.path).toBe("thresholds.chat.stream.firstEventMs.p95");
  });

  it("reach a script as events, as they come (vu.http.stream), timed and counted as in a scenario", async () => {
    server.reset();
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "scripted-streams",
        target: server.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        script: "./chat.ts",
        thresholds: { "chat.stream.firstEventMs.p50": ">=90" },
      },
      scripts: {
        "chat.ts": `
import type { Vu } from "@volley/script";
export default async function (vu: Vu) {
  const chat = await vu.http.stream("POST", "/sse?first=100&gap=30&events=5", {
    name: "chat",
    json: { stream: true },
    stream: { kind: "sse", until: "[DONE]" },
  });
  let text = "";
  for await (const event of chat.events()) text += JSON.parse(event.data).choices[0].delta.content;
  vu.check("every token", chat.status === 200 && text === "t1t2t3t4t5");
  // Leaving the loop ends a stream the server would hold open.
  const partial = await vu.http.stream("GET", "/sse?first=10&gap=20&events=10&hold=1", { name: "partial" });
  let read = 0;
  for await (const _event of partial.events()) if (++read === 3) break;
}
`,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const report = await waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
    expect(report.status).toBe("finished");
    const byName = new Map(report.summary.requests.map((r) => [r.name, r]));
    expect(byName.get("chat")).toMatchObject({ requests: 6, failures: 0 });
    expect(byName.get("chat")?.stream).toMatchObject({ events: 30, eventsPerStream: 5 });
    expect(byName.get("chat")?.stream?.firstEventMs.p50 ?? 0).toBeGreaterThanOrEqual(99);
    expect(report.summary.checks).toEqual([{ name: "every token", passes: 6, fails: 0 }]);
    expect(byName.get("partial")).toMatchObject({ requests: 6, failures: 0 });
    expect(byName.get("partial")?.stream?.eventsPerStream ?? 0).toBeGreaterThanOrEqual(3);
    expect(byName.get("partial")?.stream?.eventsPerStream ?? 99).toBeLessThanOrEqual(4);
    expect(byName.get("partial")?.latencyMs.max ?? 10_000).toBeLessThan(1000);
    expect(server.counts.streams).toBe(12);
    expect(report.passed).toBe(true);
    await waitFor(() => server.open === 0, { what: "the streams the script left closed", timeoutMs: 5000 });
  });
});
