import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { WorkerNode } from "@volley/worker";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { killAll, ROOT, sendJson, spawnCli, waitFor, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// The Workers page says which aggregator a running worker's statistics go through.
let master: RunningMaster;
let worker: WorkerNode;
let target: TargetServer;
let browser: Browser;
let runId: string;

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ webRoot: join(ROOT, "apps/web/dist"), startDelayMs: 500 });
  const prefix = master.services.config.queuePrefix;
  spawnCli(["aggregator", "--prefix", prefix, "--partition", "rack-a", "--window-ms", "200"]);
  await waitFor(async () => (await master.services.consumers.liveAggregators()).has("rack-a"), {
    what: "the aggregator to beat",
    timeoutMs: 20_000,
    intervalMs: 1100,
  });
  worker = await startTestWorker(master, { name: "racked" });
  browser = await launchBrowser();
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name: "through rack-a",
      target: target.url,
      load: { executor: "constant-vus", vus: 2, duration: "40s" },
      requests: [{ name: "hello", path: "/hello" }],
      thinkTime: "20ms",
    },
  });
  runId = created.body.id as string;
});
afterAll(async () => {
  await browser?.close();
  if (runId) await sendJson("POST", `${master.url}/api/runs/${runId}/stop`, {});
  if (runId) await waitForRunEnd(master.url, runId).catch(() => undefined);
  await worker?.shutdown(2000);
  await master?.close();
  await killAll();
  await target?.close();
});

describe("the Workers page with aggregators", () => {
  it.each(VIEWPORTS)("%s: a running worker's row names its aggregator", async (name, viewport, scheme) => {
    const page = await browser.newPage({ viewport, colorScheme: scheme });
    const errors = watchConsole(page);
    await page.goto(`${master.url}/workers`);
    const badge = page.locator('tr[data-worker="racked"] .badge', { hasText: "via rack-a" });
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.getAttribute("title")).toBe("Statistics go through aggregator rack-a");
    // Nothing wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, `workers-aggregator-${name}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
