import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import type { TargetServer } from "./support/target-server.js";

let fleet: TestFleet;
let master: RunningMaster;
let target: TargetServer;
let browser: Browser;
let runId: string;

// The HTML report, as a browser lays it out: a run with errors and checks.
beforeAll(async () => {
  fleet = await startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist") } });
  ({ master, target } = fleet);
  browser = await launchBrowser();
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name: "report-layout",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 20 },
      requests: [
        { name: "fine", path: "/hello", expect: { status: 200 } },
        { name: "broken", path: "/status/503" },
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

describe("the HTML report", () => {
  it.each(VIEWPORTS)(
    "%s: table headers sit over their columns; card values stay on one line; nothing cut off",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      await page.goto(`${master.url}/api/runs/${runId}/report.html`);
      const misaligned = await page.evaluate(() => {
        const problems: string[] = [];
        for (const table of Array.from(document.querySelectorAll("table"))) {
          const heads = Array.from(table.querySelectorAll("thead th"));
          const row = table.querySelector("tbody tr");
          if (!row) continue;
          const cells = Array.from(row.querySelectorAll("td"));
          heads.forEach((th, i) => {
            const td = cells[i];
            if (!td) return;
            const a = th.getBoundingClientRect();
            const b = td.getBoundingClientRect();
            const align = getComputedStyle(td).textAlign;
            const thAlign = getComputedStyle(th).textAlign;
            if (align !== thAlign) problems.push(`${th.textContent}: header ${thAlign}, cells ${align}`);
            if (Math.abs(a.left - b.left) > 1) problems.push(`${th.textContent}: column edges differ`);
          });
        }
        return problems;
      });
      expect(misaligned).toEqual([]);
      const wrapped = await page.evaluate(() =>
        Array.from(document.querySelectorAll(".card b"))
          .filter(
            (b) => b.getBoundingClientRect().height > Number.parseFloat(getComputedStyle(b).lineHeight) * 1.5,
          )
          .map((b) => b.textContent),
      );
      expect(wrapped).toEqual([]);
      // Nothing cut off: wide tables scroll in their box, the page does not scroll sideways.
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      expect(await page.locator("h2", { hasText: "Errors" }).count()).toBe(1);
      expect(await page.locator("h2", { hasText: "Checks" }).count()).toBe(1);
      // Axes tick in steps a person counts in: 1, 2 or 5 times a power of ten; time as 0s, 1:30.
      const axes = await page.evaluate(() =>
        Array.from(document.querySelectorAll("figure:not(.distribution):not(.heatmap) svg")).map((svg) => ({
          values: Array.from(svg.querySelectorAll('text[text-anchor="end"]')).map((t) => t.textContent ?? ""),
          times: Array.from(svg.querySelectorAll('text[text-anchor="middle"]')).map(
            (t) => t.textContent ?? "",
          ),
        })),
      );
      expect(axes.length).toBeGreaterThanOrEqual(3);
      for (const { values, times } of axes) {
        const numbers = values.map((v) => (v.endsWith("k") ? Number(v.slice(0, -1)) * 1000 : Number(v)));
        const step = numbers[1] - numbers[0];
        expect(numbers.every((n, i) => Math.abs(n - i * step) < 1e-9)).toBe(true);
        const leading = step / 10 ** Math.floor(Math.log10(step));
        expect([1, 2, 5].some((s) => Math.abs(leading - s) < 1e-9)).toBe(true);
        expect(times.every((t) => /^(\d+s|\d+:\d\d)$/.test(t))).toBe(true);
      }
      // The latency distribution: its nines, ending at the max; the whole run's line and each request's.
      const distribution = page.locator("figure.distribution");
      expect(await distribution.locator('text[text-anchor="middle"]').allTextContents()).toEqual([
        "0 %",
        "90 %",
        "99 %",
        "99.9 %",
        "99.99 %",
        "max",
      ]);
      expect(await distribution.locator("path").count()).toBe(3);
      // The heatmap: cells, the p50/p95/p99 lines over them, time on its axis.
      const heatmap = page.locator("figure.heatmap");
      expect(await heatmap.locator("rect").count()).toBeGreaterThan(0);
      expect(await heatmap.locator("path").count()).toBe(3);
      expect(await heatmap.locator('text[text-anchor="middle"]').first().textContent()).toBe("0s");
      expect(await distribution.locator("figcaption").textContent()).toMatch(/whole run [\d.]+ ms max/);
      await screenshot(page, `html-report-${name}`);
      await page.close();
    },
  );

  it("the run page's HTML button opens the report in a new tab; its second button saves it", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${master.url}/runs/${runId}`);
    await page.getByTestId("open-html").waitFor({ timeout: 10_000 });
    await screenshot(page, "run-report-buttons-desktop-light");
    const [tab] = await Promise.all([page.waitForEvent("popup"), page.getByTestId("open-html").click()]);
    await tab.waitForLoadState();
    expect(new URL(tab.url()).pathname).toBe(`/api/runs/${runId}/report.html`);
    expect(await tab.locator("h1").textContent()).toContain("report-layout");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download the HTML report" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^volley-report-layout-.*\.html$/);
    await page.close();
  });

  it.each([VIEWPORTS[0], VIEWPORTS[3]])(
    "%s: the run page draws the latency distribution, the whole run's and each request's",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/runs/${runId}`);
      const section = page.getByTestId("latency-distribution");
      await section.locator("canvas").first().waitFor();
      const legend = (await section.locator(".u-legend").textContent()) ?? "";
      // Away from the cursor the legend reads the maximum of each line.
      expect(legend).toMatch(/^percentilemaxwhole run[\d.]+ msGET fine[\d.]+ msGET broken[\d.]+ ms$/);
      const run = await (await fetch(`${master.url}/api/runs/${runId}`)).json();
      expect(legend).toContain(`whole run${Number(run.summary.total.latencyMs.max.toPrecision(3))} ms`);
      // Under the cursor at 99 %, the legend reads the API's figure there.
      const distribution = await (await fetch(`${master.url}/api/runs/${runId}/distribution`)).json();
      const at99 = distribution.total.findIndex((point: { p: number }) => Math.abs(point.p - 99) < 1e-6);
      const over = section.locator(".u-over");
      await over.scrollIntoViewIfNeeded();
      const box = (await over.boundingBox()) as { x: number; y: number; width: number; height: number };
      await page.mouse.move(box.x + (2 / 4.5) * box.width, box.y + box.height / 2);
      await waitFor(
        async () => ((await section.locator(".u-legend").textContent()) ?? "").startsWith("percentile99 %"),
        {
          what: "the legend at 99 %",
        },
      );
      expect(await section.locator(".u-legend").textContent()).toContain(
        `whole run${Number(distribution.total[at99].ms.toPrecision(3))} ms`,
      );
      await page.mouse.move(0, 0);
      await section.scrollIntoViewIfNeeded();
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, `latency-distribution-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
