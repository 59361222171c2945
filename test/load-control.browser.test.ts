import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, startTestWorker, type TestFleet } from "./support/in-process.js";
import { ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

let fleet: TestFleet;
let master: RunningMaster;
let browser: Browser;
let runId: string;

// The load control of a running run: a bad value is refused at the field, a good one shows on
// the charts as a marker and in the VUs within a couple of seconds.
beforeAll(async () => {
  fleet = await startTestFleet({ workers: 2, master: { webRoot: join(ROOT, "apps/web/dist") } });
  master = fleet.master;
  browser = await launchBrowser();
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name: "steerable",
      target: fleet.target.url,
      load: { executor: "constant-vus", vus: 2, maxVus: 6, duration: "40s" },
      thinkTime: "50ms",
      // Unique rows: a worker that joins is handed a share of the others' unused ones.
      data: {
        users: {
          rows: Array.from({ length: 5000 }, (_, i) => ({ u: `u${i}` })),
          mode: "unique",
          onExhausted: "recycle",
        },
      },
      requests: [{ path: "/hello?u={{data.users.u}}" }],
    },
  });
  runId = created.body.id as string;
});
afterAll(async () => {
  await sendJson("POST", `${master.url}/api/runs/${runId}/stop`).catch(() => {});
  await waitForRunEnd(master.url, runId, 30_000).catch(() => {});
  await browser?.close();
  await fleet?.close();
});

describe("load control on the run page", () => {
  it("refuses too many VUs at the field, then sets 6 VUs: marker, VUs and the run's changes", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchConsole(page);
    await page.goto(`${master.url}/runs/${runId}`);
    const control = page.getByTestId("load-control");
    await control.waitFor();
    expect(await control.textContent()).toContain("VUs (now 2, at most 6)");
    await page.getByTestId("load-value").fill("9");
    await page.getByTestId("load-apply").click();
    await page.getByTestId("load-error").waitFor();
    expect(await page.getByTestId("load-error").textContent()).toContain("vus: at most 6");
    await page.getByTestId("load-value").fill("6");
    await page.getByTestId("load-apply").click();
    await page.getByTestId("load-applied").waitFor();
    expect(await page.getByTestId("load-applied").textContent()).toMatch(
      /^6 VUs from [\d.]+ s to the end\.$/,
    );
    // The marker is on every chart, and the merged VUs reach 6 within a couple of seconds.
    const chart = page.locator('figure[aria-label="Virtual users"]');
    await waitFor(async () => (await chart.getAttribute("data-markers")) ?? false, {
      what: "the load change marker",
      timeoutMs: 5000,
    });
    expect(await page.locator("figure[data-markers]").count()).toBe(3);
    // Live VUs are the workers' heartbeats: a second or two behind, more on a loaded machine.
    await waitFor(async () => (await page.getByTestId("stat-vus").textContent())?.includes("6"), {
      what: "6 VUs on the page",
      timeoutMs: 15_000,
    });
    expect(await control.textContent()).toContain("VUs (now 6, at most 6)");
    // A worker that connects now is offered a share; taking it draws a second marker.
    fleet.workers.push(await startTestWorker(master, { name: "latecomer" }));
    await page.getByTestId("rebalance").waitFor();
    expect(await page.getByTestId("rebalance").textContent()).toContain(
      "latecomer is ready and not in this run.",
    );
    await screenshot(page, "load-control-rebalance-desktop-light");
    await page.getByTestId("rebalance-button").click();
    await waitFor(async () => (await chart.getAttribute("data-markers"))?.split(",").length === 2, {
      what: "the rebalance marker",
      timeoutMs: 10_000,
    });
    await page.getByTestId("rebalance").waitFor({ state: "detached" });
    // The marker says how many unused rows the newcomer was handed (screen readers read it).
    expect(await page.getByTestId("chart-markers").first().textContent()).toMatch(
      /at [\d.]+ s: ⇄ 3 workers, [\d,]+ rows$/,
    );
    await page.getByTestId("run-workers").getByText("latecomer").waitFor();
    await screenshot(page, "load-control-desktop-light");
    // The refused PATCH is the only failed request the browser reports.
    expect(errors).toEqual([expect.stringContaining("status of 400")]);
    await page.close();
  });

  it.each(VIEWPORTS.slice(1))("%s: the control and the markers fit", async (name, viewport, scheme) => {
    const page = await browser.newPage({ viewport, colorScheme: scheme });
    const errors = watchConsole(page);
    await page.goto(`${master.url}/runs/${runId}`);
    await page.getByTestId("load-control").waitFor();
    await page.locator("figure[data-markers]").first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, `load-control-${name}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
