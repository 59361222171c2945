import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { Timeseries } from "@volley/protocol";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitForRunEnd } from "./support/processes.js";
import type { TargetServer } from "./support/target-server.js";

let fleet: TestFleet;
let master: RunningMaster;
let target: TargetServer;
let browser: Browser;
let runId: string;

// A run with flows, a group and a think-time distribution, as the dashboard shows it.
beforeAll(async () => {
  fleet = await startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist") } });
  ({ master, target } = fleet);
  browser = await launchBrowser();
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name: "shop-mix",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 20 },
      thinkTime: { distribution: "exponential", mean: "2ms" },
      flows: [
        {
          name: "browse",
          weight: 3,
          requests: [{ name: "look", path: "/look", expect: { status: 200 } }],
        },
        {
          name: "checkout",
          requests: [
            {
              group: "pay",
              requests: [
                { name: "cart", path: "/cart" },
                { repeat: 2, requests: [{ name: "poll", path: "/poll" }] },
              ],
            },
          ],
        },
      ],
    },
  });
  runId = created.body.id as string;
  await waitForRunEnd(master.url, runId, 30_000);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

describe("a traffic mix in the dashboard", () => {
  it.each(VIEWPORTS)(
    "%s: the run page names each request's flow and lists the group after the total",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/runs/${runId}`);
      const table = page.getByTestId("request-table");
      await table.waitFor();
      const rows = await table.locator("tbody tr td:first-child").allTextContents();
      expect(rows).toEqual([
        "browse · GET look",
        "checkout · GET cart",
        "checkout · GET poll",
        "Total",
        "group pay",
      ]);
      // A group is timed, not sent: no bytes of its own ("–", not "0 B"); the total has its requests'.
      const cellsOf = (label: string) => table.locator("tbody tr", { hasText: label }).locator("td");
      expect((await cellsOf("group pay").allTextContents()).slice(-2)).toEqual(["–", "–"]);
      expect((await cellsOf("Total").allTextContents()).at(-1)).toMatch(/\d.* (B|KiB)$/);
      // The request with expect is a check: every answer met it.
      const checks = await page.getByTestId("checks").locator("tbody tr td").allTextContents();
      expect(checks[0]).toBe("✓ look");
      expect(checks[2]).toBe("0");
      expect(checks[3]).toBe("100.00 %");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `traffic-mix-run-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each(VIEWPORTS)(
    "%s: the editor keeps flows and distributions and says where to edit them",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/new?from=${runId}`);
      await page.getByTestId("flows-note").waitFor();
      expect(await page.getByTestId("flows-note").textContent()).toContain(
        "2 flows (browse, checkout). Edit flows, groups and repeats in the scenario text.",
      );
      expect(await page.getByTestId("think-distribution").textContent()).toContain(
        "Distribution: exponential. Edit it in the scenario text.",
      );
      // The text keeps everything the form does not edit.
      const text = await page.getByLabel("Scenario text").inputValue();
      expect(text).toContain("group: pay");
      expect(text).toContain("repeat: 2");
      expect(await page.getByRole("button", { name: "Add request" }).count()).toBe(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `traffic-mix-editor-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each([
    ["desktop-light", { width: 1400, height: 900 }, "light"],
    ["phone-dark", { width: 390, height: 844 }, "dark"],
  ] as const)(
    "%s: several scenarios at once, on the run page and in the editor",
    async (name, viewport, scheme) => {
      const created = await sendJson("POST", `${master.url}/api/runs`, {
        scenario: {
          name: "at-once",
          target: target.url,
          scenarios: {
            browse: {
              load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
              requests: [{ name: "item", path: "/item" }],
            },
            checkout: {
              load: { executor: "constant-arrival-rate", rate: 10, duration: "1s", maxVus: 4 },
              // The same request name as browse's: each scenario's row is its own.
              requests: [{ name: "item", path: "/pay" }],
            },
          },
        },
      });
      await waitForRunEnd(master.url, created.body.id as string, 30_000);
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/runs/${created.body.id}`);
      await page.getByTestId("request-table").waitFor();
      const rows = await page
        .getByTestId("request-table")
        .locator("tbody tr td:first-child")
        .allTextContents();
      expect(rows).toEqual([
        "browse · GET item",
        "checkout · GET item",
        "Total",
        "scenario browse",
        "scenario checkout",
      ]);
      expect(await page.getByText("2 scenarios").first().isVisible()).toBe(true);
      // The charts show the whole run, or one scenario's series.
      const scope = page.getByTestId("chart-scope");
      expect(await scope.getByRole("button").allTextContents()).toEqual(["whole run", "browse", "checkout"]);
      await scope.getByRole("button", { name: "checkout" }).click();
      const checkout = page.getByRole("figure", { name: "Throughput and errors · checkout" });
      await checkout.waitFor();
      // Away from the cursor a legend reads the latest second, not "--" placeholders.
      const legend = (await checkout.locator(".u-legend").textContent()) ?? "";
      expect(legend).not.toContain("--");
      // (Its latest second: the run's last one, whichever that was on this machine.)
      const series = await getJson<Timeseries>(
        `${master.url}/api/runs/${created.body.id}/timeseries?scenario=checkout`,
      );
      // The last second where both lines have a value.
      const last = series.overall.filter((p) => p.rps !== null && p.errorsPerSec !== null).at(-1);
      expect(legend).toBe(`t${last?.t}srequests/s${Number(last?.rps.toPrecision(3))}errors/s0`);
      expect(await scope.getByRole("button", { name: "checkout" }).getAttribute("aria-pressed")).toBe("true");
      expect(await page.getByRole("figure", { name: "Virtual users · whole run" }).count()).toBe(1);
      await screenshot(page, `scenarios-run-${name}`);
      await page.goto(`${master.url}/new?from=${created.body.id}`);
      await page.getByTestId("scenarios-note").waitFor();
      expect(await page.getByTestId("scenarios-note").textContent()).toContain(
        "2 scenarios at once (browse, checkout)",
      );
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `scenarios-editor-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each(VIEWPORTS)(
    "%s: compare shows the group as a section of its own",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/compare?a=${runId}&b=${runId}`);
      await page.getByText("Group pay").waitFor();
      const headings = await page.locator("section h2").allTextContents();
      expect(headings).toEqual(["Whole run", "Distribution", "Over each other", "By part"]);
      // Runs are named by name and start, not by id.
      const compared = page.getByTestId("compared-runs");
      expect(await compared.textContent()).toMatch(/^A shop-mix \(started .+\) · B shop-mix \(started .+\)$/);
      expect(await compared.locator("time").count()).toBe(2);
      expect(await compared.textContent()).not.toContain(runId);
      // The two distributions overlaid; a run against itself reads the same maximum for both.
      const overlaid = page.getByTestId("compare-distribution");
      await overlaid.locator("canvas").first().waitFor();
      expect(await overlaid.locator(".u-legend").textContent()).toMatch(/^percentilemaxA([\d.]+) msB\1 ms$/);
      // A run against itself: every percentile's share is the same, z 0, "within noise".
      const judgements = await page
        .locator("[data-testid=compare-shift] tbody td:last-child")
        .allTextContents();
      expect(judgements).toEqual(Array(6).fill("within noise"));
      // One table, a row group per part: the group is a part of its own, after the requests.
      const parts = await page.locator("[data-testid=compare-parts] .part-row").allTextContents();
      expect(parts).toEqual(["look", "cart", "poll", "Group pay"]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `traffic-mix-compare-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
