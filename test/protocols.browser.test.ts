import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { type GrpcTestServer, startGrpcServer, TEST_PROTOS } from "./support/grpc-server.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, sendJson, waitForRunEnd } from "./support/processes.js";
import { startWsServer, type WsTestServer } from "./support/ws-server.js";

let fleet: TestFleet;
let server: WsTestServer;
let grpc: GrpcTestServer;
let browser: Browser;
let runId: string;
let grpcRunId: string;

// A scripted WebSocket run and a gRPC one: their pages show each socket's or stream's messages
// and bytes beside the requests, and gRPC statuses among the status codes.
beforeAll(async () => {
  [fleet, server, grpc, browser] = await Promise.all([
    startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist") } }),
    startWsServer(),
    startGrpcServer(),
    launchBrowser(),
  ]);
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: {
      name: "ws-page",
      target: server.url,
      load: { executor: "per-vu-iterations", vus: 3, iterations: 4 },
      script: "./ws.ts",
    },
    scripts: {
      "ws.ts": `export default async (vu) => {
        const ws = await vu.ws.connect("/echo", { name: "chat" });
        ws.send("ping " + vu.number);
        await ws.next({ match: "ping", name: "chat.reply" });
        await ws.close();
      };`,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  runId = created.body.id as string;
  await waitForRunEnd(fleet.master.url, runId, 60_000);
  const file = (name: string) => readFileSync(join(TEST_PROTOS, name)).toString("base64");
  const grpcRun = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: {
      name: "grpc-page",
      target: grpc.target,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      script: "./grpc.ts",
    },
    scripts: {
      "grpc.ts": `export default async (vu) => {
        const c = vu.grpc.connect({ proto: "greeter.proto" });
        await c.invoke("volley.example.Greeter/SayHello", { name: "x", fail_with: vu.iteration === 0 ? 5 : 0 }, { name: "hello" });
        for await (const _ of c.serverStream("volley.example.Greeter/CountTo", { count: 4, gap_ms: 1 }, { name: "count" })) {}
      };`,
    },
    attachments: { "greeter.proto": file("greeter.proto"), "common/stamp.proto": file("common/stamp.proto") },
    typecheck: false,
  });
  expect(grpcRun.status, JSON.stringify(grpcRun.body)).toBe(201);
  grpcRunId = grpcRun.body.id as string;
  await waitForRunEnd(fleet.master.url, grpcRunId, 60_000);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
  await server?.close();
  await grpc?.close();
});

describe("a WebSocket run's page", () => {
  it.each(VIEWPORTS)(
    "%s: lists each socket's messages and bytes as the server counted them",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/runs/${runId}`);
      const table = page.getByTestId("messages");
      await table.waitFor();
      const cells = await table.locator("tbody tr").first().locator("td").allTextContents();
      expect(cells.slice(0, 5)).toEqual([
        "chat",
        "WebSocket",
        "12",
        String(server.counts.received),
        String(server.counts.sent),
      ]);
      expect(cells[5]).toMatch(/ B$/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await table.scrollIntoViewIfNeeded();
      await screenshot(page, `websocket-run-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});

describe("a gRPC run's page", () => {
  it.each(VIEWPORTS)(
    "%s: lists the stream's messages, and gRPC statuses with the failing ones marked",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/runs/${grpcRunId}`);
      const table = page.getByTestId("messages");
      await table.waitFor();
      const cells = await table.locator("tbody tr").first().locator("td").allTextContents();
      expect(cells.slice(0, 5)).toEqual(["count", "gRPC stream", "6", "6", String(grpc.counts.streamOut)]);
      const statuses = page.getByTestId("status-codes");
      await expect.poll(() => statuses.locator("tbody tr").count()).toBe(2);
      const failing = statuses.locator("td.bad");
      expect(await failing.allTextContents()).toEqual(["grpc:NOT_FOUND"]);
      expect(await statuses.textContent()).toContain("grpc:OK");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await table.scrollIntoViewIfNeeded();
      await screenshot(page, `grpc-run-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
