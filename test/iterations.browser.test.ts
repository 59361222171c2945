import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, sendJson, waitForRunEnd } from "./support/processes.js";

// Iterations as the dashboard shows them: a shared-iterations run whose unique feeder runs out
// before its last iterations, its page giving the iterations run and those skipped as the API
// counts them, the skipped ones named first thing; the New run form offering the executor.
let fleet: TestFleet;
let browser: Browser;
let report: RunDetail;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 1, threads: 2, master: { webRoot: join(ROOT, "apps/web/dist") } });
  browser = await launchBrowser();
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: {
      name: "shared",
      target: fleet.target.url,
      load: { executor: "shared-iterations", vus: 4, iterations: 120 },
      data: { items: { rows: Array.from({ length: 100 }, (_, i) => ({ id: `i${i}` })), mode: "unique" } },
      requests: [
        { name: "item", path: "/item/{{data.items.id}}" },
        {
          parallel: [
            { name: "css", path: "/app.css" },
            { name: "js", path: "/app.js" },
          ],
        },
      ],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  report = await waitForRunEnd<RunDetail>(fleet.master.url, created.body.id as string, 60_000);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

describe("iterations in the dashboard", () => {
  it.each(VIEWPORTS)(
    "%s: the run page counts iterations run and skipped as the API does",
    async (name, viewport, scheme) => {
      expect(report.summary.total.iterations).toBe(100);
      expect(report.summary.total.skippedIterations).toBe(20);
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/runs/${report.id}`);
      const iterations = page.getByTestId("stat-iterations");
      await iterations.waitFor();
      expect(await iterations.textContent()).toContain("100");
      expect(await page.getByTestId("stat-skipped").textContent()).toContain("20");
      const warning = page.getByTestId("saturation-warning");
      expect(await warning.textContent()).toContain("20 planned iterations did not run");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `iterations-run-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each(VIEWPORTS)(
    "%s: the New run form offers shared-iterations with its fields",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/new`);
      const executor = page.locator('select[name="executor"]');
      await executor.waitFor();
      await executor.selectOption("shared-iterations");
      await page.getByLabel("Iterations in all").waitFor();
      expect(await page.getByLabel("Iterations in all").inputValue()).toBe("100");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `iterations-new-run-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
