import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// Worker labels in the dashboard: the Workers page shows and filters by them, the New run form
// offers them as the run's worker selector, and runs on disjoint pools are shown at once.
let master: RunningMaster;
let target: TargetServer;
let browser: Browser;
const nodes: WorkerNode[] = [];

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ webRoot: join(ROOT, "apps/web/dist") });
  nodes.push(await startTestWorker(master, { name: "eu-1", labels: { pool: "eu", tier: "big" } }));
  nodes.push(await startTestWorker(master, { name: "eu-2", labels: { pool: "eu" } }));
  nodes.push(await startTestWorker(master, { name: "us-1", labels: { pool: "us" } }));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  for (const node of nodes) await node.shutdown(2000);
  await master?.close();
  await target?.close();
});

describe("worker labels in the dashboard", () => {
  it.each(VIEWPORTS)(
    "%s: the Workers page shows each worker's labels and filters by one",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/workers`);
      await page.locator('tr[data-worker="eu-1"]').getByText("tier=big").waitFor();
      await page.getByLabel("Show workers with the label").selectOption("pool=eu");
      await waitFor(async () => (await page.getByTestId("worker-list").locator("tbody tr").count()) === 2, {
        what: "two eu workers shown",
      });
      expect(await page.getByTestId("label-filter-count").textContent()).toBe("2 of 3 workers");
      expect(await page.locator('tr[data-worker="us-1"]').count()).toBe(0);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      await screenshot(page, `workers-labels-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it("offers the labels on the New run form and runs on the chosen pool", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${master.url}/new`);
    await page.locator('input[name="target"]').fill(target.url);
    await page.locator('input[name="name"]').fill("labelled-run");
    await page.locator('input[name="load.duration"]').fill("2s");
    await page.locator('input[name="thinkTime"]').fill("100ms");
    await page.locator('select[name="workers.selector"]').selectOption("pool=us");
    await waitFor(async () => (await page.getByLabel("Scenario text").inputValue()).includes("pool: us"), {
      what: "the selector in the scenario text",
    });
    await screenshot(page, "new-run-workers");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    const id = page.url().split("/").pop() ?? "";
    const detail = await getJson<RunDetail>(`${master.url}/api/runs/${id}`);
    expect(detail.workers.map((w) => w.name)).toEqual(["us-1"]);
    const end = await waitForRunEnd(master.url, id, 30_000);
    expect(end.status).toBe("finished");
    await page.close();
  });

  it("two runs on disjoint pools at once: the overview names the other, each run page charts its own", async () => {
    const start = async (name: string, pool: string) => {
      const created = await sendJson("POST", `${master.url}/api/runs`, {
        scenario: {
          name,
          target: target.url,
          workers: { selector: { pool } },
          load: { executor: "constant-vus", vus: 1, duration: "60s" },
          thinkTime: "50ms",
          requests: [{ path: "/hello" }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const eu = await start("eu-run", "eu");
    const us = await start("us-run", "us");
    try {
      for (const [name, viewport, scheme] of VIEWPORTS) {
        const page = await browser.newPage({ viewport, colorScheme: scheme });
        const errors = watchConsole(page);
        await page.goto(`${master.url}/`);
        await page.getByTestId("in-progress-count").getByText("2 running").waitFor();
        // The overview follows the run started last and names the other.
        await page.getByTestId("also-in-progress").getByRole("link", { name: "eu-run" }).waitFor();
        await screenshot(page, `overview-two-runs-${name}`);
        await page.goto(`${master.url}/runs/${eu}`);
        await page.getByTestId("run-status").getByText("running").waitFor();
        await screenshot(page, `run-beside-another-${name}`);
        expect(errors).toEqual([]);
        await page.close();
      }
    } finally {
      for (const id of [eu, us]) await sendJson("POST", `${master.url}/api/runs/${id}/stop`);
    }
    for (const id of [eu, us]) expect((await waitForRunEnd(master.url, id, 30_000)).status).toBe("aborted");
  });
});
