import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, sendJson, waitForRunEnd } from "./support/processes.js";

// Finding one's way: an address the dashboard does not know, and moments written one way everywhere.
let fleet: TestFleet;
let master: RunningMaster;
let browser: Browser;
let runId: string;

beforeAll(async () => {
  fleet = await startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist") } });
  master = fleet.master;
  browser = await launchBrowser();
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name: "dated",
      target: fleet.target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 2 },
      requests: [{ path: "/hello" }],
    },
  });
  runId = created.body.id as string;
  await waitForRunEnd(master.url, runId, 30_000);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

describe("navigation", () => {
  it.each(VIEWPORTS)(
    "%s: an unknown address says so and offers the way back",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/no/such/page`);
      await page.getByTestId("not-found").waitFor();
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Page not found");
      expect(await page.getByTestId("not-found").textContent()).toContain("/no/such/page");
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, `not-found-${name}`);
      await page.getByTestId("not-found").getByRole("link", { name: "History" }).click();
      await page.getByTestId("history").waitFor();
      expect(new URL(page.url()).pathname).toBe("/runs");
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it("writes a run's moments one way on every page, the full date and zone on hover", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${master.url}/runs`);
    const listed = page.locator(`[data-run="${runId}"] time`);
    await listed.waitFor();
    await page.goto(`${master.url}/runs/${runId}`);
    const started = page.locator("time").first();
    await started.waitFor();
    const run = await (await fetch(`${master.url}/api/runs/${runId}`)).json();
    expect(await started.getAttribute("datetime")).toBe(run.startedAt);
    // The run page and the history write the start the same way.
    await page.goto(`${master.url}/runs`);
    await page.locator(`[data-run="${runId}"] time`).waitFor();
    const inHistory = await page.locator(`[data-run="${runId}"] time`).textContent();
    await page.goto(`${master.url}/runs/${runId}`);
    expect(await page.locator("time").first().textContent()).toBe(inHistory);
    const title = (await page.locator("time").first().getAttribute("title")) ?? "";
    expect(title).toMatch(/\d{4}/);
    expect(title.length).toBeGreaterThan((inHistory ?? "").length);
    await page.close();
  });
});
