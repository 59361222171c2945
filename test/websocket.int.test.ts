import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { startWsServer, type WsTestServer } from "./support/ws-server.js";

// WebSockets from scripts, across two workers: the handshake is a request (101), each awaited
// reply a request of its name timed from the send, messages and bytes counted both ways. The
// server's own counts are the figures that matter.
let fleet: TestFleet;
let server: WsTestServer;
let master: RunningMaster;

beforeAll(async () => {
  [fleet, server] = await Promise.all([startTestFleet({ workers: 2, threads: 1 }), startWsServer()]);
  ({ master } = fleet);
});
afterAll(async () => {
  await fleet?.close();
  await server?.close();
});

async function run(scenario: Record<string, unknown>, script: string): Promise<RunDetail> {
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: { target: server.url, script: "./ws.ts", ...scenario },
    scripts: { "ws.ts": script },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
}

const CHAT = `
import type { Vu } from "@volley/script";
export default async function (vu: Vu) {
  const ws = await vu.ws.connect("/echo?delay=50", { name: "chat" });
  for (let i = 0; i < 3; i++) {
    ws.send(\`hi \${vu.number}-\${vu.iteration}-\${i}\`);
    const reply = await ws.next({ match: \`echo: hi \${vu.number}-\${vu.iteration}-\${i}\`, name: "chat.reply" });
    vu.check("echoed", typeof reply === "string");
  }
  await ws.close();
}
`;

describe("WebSocket from scripts", () => {
  it("counts handshakes, replies, messages and bytes exactly as the server does, timed as it delays", async () => {
    server.reset();
    const vus = 4;
    const iterations = 5;
    const report = await run(
      {
        name: "ws-chat",
        load: { executor: "per-vu-iterations", vus, iterations },
        thresholds: { "chat.reply.p95": "<20ms" },
      },
      CHAT,
    );
    expect(report.status).toBe("finished");
    const byName = new Map(report.summary.requests.map((r) => [r.name, r]));
    const chat = byName.get("chat");
    const reply = byName.get("chat.reply");
    expect(server.counts.handshakes).toBe(vus * iterations);
    expect(chat).toMatchObject({ method: "WS", requests: server.counts.handshakes, failures: 0 });
    expect(reply).toMatchObject({ method: "WS", requests: server.counts.sent, failures: 0 });
    expect(server.counts.received).toBe(vus * iterations * 3);
    expect(chat?.ws).toEqual({
      messagesSent: server.counts.received,
      messagesReceived: server.counts.sent,
      bytesIn: server.counts.bytesOut,
      bytesOut: server.counts.bytesIn,
    });
    expect(report.summary.statusCodes["101"]).toBe(server.counts.handshakes);
    // The server waits 50 ms before each reply.
    expect(reply?.latencyMs.p50 ?? 0).toBeGreaterThanOrEqual(49);
    expect(reply?.latencyMs.p50 ?? 0).toBeLessThan(150);
    expect(report.workers.filter((w) => w.requests > 0)).toHaveLength(2);
    expect(report.summary.checks).toEqual([{ name: "echoed", passes: 60, fails: 0 }]);
    // A threshold on the replies judges the run: 50 ms is not under 20 ms.
    expect(report.passed).toBe(false);
    expect(report.thresholds).toEqual([expect.objectContaining({ key: "chat.reply.p95", pass: false })]);
    // Nothing left open.
    await waitFor(() => server.open === 0, { what: "every socket closed", timeoutMs: 5000 });
    // The HTML report has the sockets' messages.
    const html = await (await fetch(`${master.url}/api/runs/${report.id}/report.html`)).text();
    expect(html).toContain("<h2>Messages</h2>");
    expect(html).toContain(
      `<td class="text">chat</td><td class="text">WebSocket</td><td>${vus * iterations}</td><td>60</td><td>60</td>`,
    );
  });

  it("counts a refused handshake as a status failure, a silent peer as a timeout, and closes sockets a script left open", async () => {
    server.reset();
    const report = await run(
      { name: "ws-faults", load: { executor: "per-vu-iterations", vus: 2, iterations: 2 } },
      `
import type { Vu } from "@volley/script";
export default async function (vu: Vu) {
  try {
    await vu.ws.connect("/refuse", { name: "refused" });
  } catch {}
  const quiet = await vu.ws.connect("/silent", { name: "quiet" });
  quiet.send("anyone?");
  await quiet.next({ name: "quiet.reply", timeout: 100 }).catch(() => undefined);
  const rude = await vu.ws.connect("/hangup", { name: "rude" });
  rude.send("hello?");
  await rude.next({ name: "rude.reply" }).catch(() => undefined);
  // "quiet" is not closed by the script: the iteration's end closes it.
}
`,
    );
    expect(report.status).toBe("finished");
    const byName = new Map(report.summary.requests.map((r) => [r.name, r]));
    expect(server.counts.refused).toBe(4);
    expect(byName.get("refused")).toMatchObject({ requests: 4, failures: 4 });
    expect(report.summary.statusCodes["403"]).toBe(4);
    expect(byName.get("quiet")).toMatchObject({
      requests: 4,
      failures: 0,
      ws: expect.objectContaining({ messagesSent: 4 }),
    });
    expect(byName.get("quiet.reply")).toMatchObject({ requests: 4, failures: 4 });
    expect(byName.get("quiet.reply")?.latencyMs.p50 ?? 0).toBeGreaterThanOrEqual(99);
    const kinds = report.summary.errors.map((e) => `${e.request} ${e.kind}`).sort();
    expect(kinds).toEqual(["quiet.reply timeout", "refused status", "rude.reply closed"]);
    expect(byName.get("rude.reply")).toMatchObject({ requests: 4, failures: 4 });
    expect(server.counts.received).toBe(8);
    await waitFor(() => server.open === 0, {
      what: "the sockets the script left open closed",
      timeoutMs: 5000,
    });
  });
});

describe("WebSocket in a declarative scenario (ws: with steps)", () => {
  async function runScenario(scenario: Record<string, unknown>): Promise<RunDetail> {
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: { target: server.url, ...scenario },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
  }

  it("sends, awaits and closes as written; counts equal the server's; failures by kind", async () => {
    server.reset();
    const report = await runScenario({
      name: "ws-yaml",
      load: { executor: "per-vu-iterations", vus: 3, iterations: 4 },
      requests: [
        {
          name: "chat",
          ws: "/echo?delay=50",
          steps: [
            { send: "hi {{vu}}-{{iter}}" },
            { expect: "echo: hi {{vu}}-{{iter}}", name: "chat.reply", timeout: "2s" },
            { send: "again" },
            { expect: "again" },
            { close: true },
          ],
        },
        { name: "refused", ws: "/refuse" },
        { name: "quiet", ws: "/silent", steps: [{ send: "x" }, { expect: "never", timeout: "100ms" }] },
      ],
      thresholds: { "chat.reply.p95": "<1s" },
    });
    expect(report.status).toBe("finished");
    const byName = new Map(report.summary.requests.map((r) => [r.name, r]));
    expect(server.counts.handshakes).toBe(24);
    expect(byName.get("chat")).toMatchObject({ method: "WS", requests: 12, failures: 0 });
    expect(byName.get("chat.reply")).toMatchObject({
      method: "WS",
      requests: server.counts.sent,
      failures: 0,
    });
    expect(byName.get("chat.reply")?.latencyMs.p50 ?? 0).toBeGreaterThanOrEqual(49);
    expect(byName.get("chat")?.ws).toMatchObject({ messagesSent: 24, messagesReceived: 24 });
    expect(byName.get("refused")).toMatchObject({ requests: 12, failures: 12 });
    expect(server.counts.refused).toBe(12);
    expect(byName.get("quiet")).toMatchObject({ requests: 12, failures: 0 });
    expect(byName.get("quiet.reply")).toMatchObject({ requests: 12, failures: 12 });
    expect(server.counts.received).toBe(36);
    expect(report.summary.total.requests).toBe(12 + 24 + 12 + 12 + 12);
    expect(report.thresholds).toEqual([expect.objectContaining({ key: "chat.reply.p95", pass: true })]);
    await waitFor(() => server.open === 0, { what: "every socket closed", timeoutMs: 5000 });
  });

  it("cuts sockets still waiting at the end of gracefulStop, counting their exchanges as aborted", async () => {
    server.reset();
    const report = await runScenario({
      name: "ws-abort",
      load: { executor: "constant-vus", vus: 3, duration: "1s", gracefulStop: "200ms" },
      requests: [
        { name: "long", ws: "/silent", steps: [{ send: "x" }, { expect: "never", timeout: "30s" }] },
      ],
    });
    expect(report.status).toBe("finished");
    const byName = new Map(report.summary.requests.map((r) => [r.name, r]));
    expect(byName.get("long")).toMatchObject({ requests: 3, failures: 0 });
    expect(byName.get("long.reply")).toMatchObject({ requests: 3, failures: 3 });
    expect(report.summary.errors).toEqual([
      expect.objectContaining({ kind: "aborted", request: "long.reply", count: 3 }),
    ]);
    expect(server.counts.handshakes).toBe(3);
    await waitFor(() => server.open === 0, { what: "the cut sockets closed", timeoutMs: 5000 });
  });
});
