import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, sendJson, waitForRunEnd } from "./support/processes.js";
import { startWsServer, type WsTestServer } from "./support/ws-server.js";

let fleet: TestFleet;
let server: WsTestServer;
let browser: Browser;
let runId: string;

// A scripted WebSocket run: its page shows each socket's messages and bytes beside the requests.
beforeAll(async () => {
  [fleet, server, browser] = await Promise.all([
    startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist") } }),
    startWsServer(),
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
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
  await server?.close();
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
      expect(cells.slice(0, 4)).toEqual([
        "chat",
        "12",
        String(server.counts.received),
        String(server.counts.sent),
      ]);
      expect(cells[4]).toMatch(/ B$/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await table.scrollIntoViewIfNeeded();
      await screenshot(page, `websocket-run-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
