import { join } from "node:path";
import type { LatencyHeatmap, RunSummary } from "@volley/protocol";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// A range of a run chosen on its page (a ramp stage, or a drag across a chart) shows the exact
// summary of those seconds, as the API gives it.
let fleet: TestFleet;
let browser: Browser;
let runId = "";

beforeAll(async () => {
  fleet = await startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist"), startDelayMs: 300 } });
  browser = await launchBrowser();
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: {
      name: "ramped",
      target: fleet.target.url,
      load: {
        executor: "ramping-vus",
        stages: [
          { duration: "2s", target: 2 },
          { duration: "2s", target: 4 },
        ],
      },
      thinkTime: "10ms",
      requests: [{ name: "hello", path: "/hello" }],
    },
  });
  runId = created.body.id as string;
  await waitForRunEnd(fleet.master.url, runId, 30_000);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

describe("a range of a run on its page", () => {
  it.each(VIEWPORTS)(
    "%s: a stage, then a dragged range, show their exact figures",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/runs/${runId}`);
      const panel = page.getByTestId("window-summary");
      await panel.getByRole("button", { name: "Stage 2 (2–4 s)" }).click();
      await waitFor(async () => (await panel.locator("h2").textContent()) === "Seconds 2–4", {
        what: "stage 2",
      });
      const stage = await getJson<RunSummary>(`${fleet.master.url}/api/runs/${runId}/summary?from=2&to=4`);
      await waitFor(
        async () =>
          ((await page.getByTestId("window-totals").textContent()) ?? "").startsWith(
            `${stage.total.requests.toLocaleString("en-US")} requests`,
          ),
        { what: "stage 2's totals" },
      );
      // Drag across the first chart's plot from its left edge to its middle.
      await dragAcross(page, page.locator(".chart .u-over").first(), (box) => [
        box.x + 2,
        box.x + box.width / 2,
      ]);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      await panel.scrollIntoViewIfNeeded();
      await screenshot(page, `run-window-${name}`);
      await page.getByTestId("window-clear").click();
      await panel.getByText("Drag across a chart").waitFor();
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});

describe("/trends", () => {
  it.each(VIEWPORTS)(
    "%s: a scenario's runs side by side, with a baseline picked",
    async (name, viewport, scheme) => {
      if (name === VIEWPORTS[0][0]) {
        // A second finished run of the same name (once, before the first view).
        const again = await sendJson("POST", `${fleet.master.url}/api/runs`, {
          scenario: {
            name: "ramped",
            target: fleet.target.url,
            load: { executor: "per-vu-iterations", vus: 2, iterations: 20 },
            requests: [{ name: "hello", path: "/hello" }],
          },
        });
        await waitForRunEnd(fleet.master.url, again.body.id as string, 30_000);
      }
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/trends`);
      await page.getByTestId("trend-name").selectOption("ramped");
      const rows = page.getByTestId("trend-table").locator("tbody tr");
      await waitFor(async () => (await rows.count()) === 2, { what: "two runs in the trend" });
      // Oldest first: the ramped run is the first row.
      expect(await rows.first().getAttribute("data-run")).toBe(runId);
      if (name === VIEWPORTS[0][0]) {
        // Pin the first run as the name's baseline: every view then opens with it chosen.
        await rows.first().getByRole("button", { name: "Pin" }).click();
        await rows.first().getByTestId("pinned").waitFor();
      }
      await waitFor(() => rows.first().getByRole("radio").isChecked(), {
        what: "the pinned run as the baseline",
      });
      // Another baseline can be chosen for this view; the URL keeps it.
      const secondId = await rows.nth(1).getAttribute("data-run");
      await rows.nth(1).getByRole("radio").click();
      await page.waitForURL(new RegExp(`baseline=${secondId}`));
      await page.locator("figure.chart canvas").first().waitFor();
      expect(await page.locator("figure.chart").first().getAttribute("data-last-t")).toBe("1");
      // A band of ±10 % around the baseline's p95 and throughput, drawn and read in the legends.
      const trend = await getJson<Array<{ id: string; p95: number; rps: number }>>(
        `${fleet.master.url}/api/trends?name=ramped&limit=50`,
      );
      const base = trend.find((p) => p.id === secondId) as { p95: number; rps: number };
      const three = (v: number) => Number(v.toPrecision(3)).toLocaleString("en-US");
      const latencyLegend =
        (await page.getByRole("figure", { name: "Latency" }).locator(".u-legend").textContent()) ?? "";
      expect(latencyLegend).toContain(
        `baseline p95 high${three(base.p95 * 1.1)}baseline p95 low${three(base.p95 * 0.9)}`,
      );
      // A band of 1 %: the other run's figures on the worse side of it are marked; a bad width is refused.
      const width = page.getByRole("textbox", { name: "Band around the baseline, percent" });
      await width.fill("1");
      await width.press("Enter");
      await page.waitForURL(/band=1(&|$)/);
      const first = trend[0];
      const outside = { p95: first.p95 > base.p95 * 1.01, rps: first.rps < base.rps * 0.99 };
      await waitFor(
        async () =>
          (await rows.first().locator("td[data-outside]").count()) ===
          Number(outside.p95) + Number(outside.rps),
        { what: "the runs outside a 1 % band marked" },
      );
      await width.fill("abc");
      await width.press("Enter");
      await page
        .getByRole("alert")
        .filter({ hasText: 'Band: "abc" is not a whole percent from 1 to 100' })
        .waitFor();
      await width.fill("10");
      await width.press("Enter");
      await page.waitForURL(/band=10(&|$)/);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      await screenshot(page, `trends-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each([VIEWPORTS[0], VIEWPORTS[3]])(
    "%s: the latency heatmap counts every request; dragging across it shows those seconds' figures",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/runs/${runId}`);
      const figure = page.getByTestId("latency-heatmap").locator("figure");
      await waitFor(async () => Number(await figure.getAttribute("data-requests")) > 0, {
        what: "the heatmap's data",
      });
      const run = await getJson<{ summary: RunSummary }>(`${fleet.master.url}/api/runs/${runId}`);
      expect(Number(await figure.getAttribute("data-requests"))).toBe(run.summary.total.requests);
      // The cell under the cursor (second 1's busiest bucket) reads as the API counts it.
      const heatmap = await getJson<LatencyHeatmap>(`${fleet.master.url}/api/runs/${runId}/heatmap`);
      const row = heatmap.counts[heatmap.seconds.indexOf(1)];
      const bucket = row.indexOf(Math.max(...row));
      const canvas = figure.locator("canvas");
      await canvas.scrollIntoViewIfNeeded();
      const box = (await canvas.boundingBox()) as { x: number; y: number; width: number; height: number };
      const [plotW, plotH] = [box.width - 56 - 12, box.height - 8 - 24];
      const span = (heatmap.seconds.at(-1) ?? 0) + 1;
      await page.mouse.move(
        box.x + 56 + (1.5 / span) * plotW,
        box.y + 8 + plotH - ((bucket + 0.5) / (heatmap.edgesMs.length - 1)) * plotH,
      );
      const readout = page.getByTestId("heatmap-readout");
      await readout.waitFor();
      expect(await readout.getAttribute("data-second")).toBe("1");
      expect(await readout.textContent()).toContain(
        `${row[bucket].toLocaleString("en-US")} requests (of ${row.reduce((n, c) => n + c, 0).toLocaleString("en-US")} that second)`,
      );
      await page.mouse.move(0, 0);
      // From the plot's left edge (past the 56 px of labels) to its middle.
      await dragAcross(page, figure.locator("canvas"), (box) => [
        box.x + 58,
        box.x + 56 + (box.width - 68) / 2,
      ]);
      // Under the cursor at 2 s, the throughput chart's legend reads the API's second.
      const series = await getJson<{ overall: Array<{ t: number; rps: number }> }>(
        `${fleet.master.url}/api/runs/${runId}/timeseries`,
      );
      const lastT = series.overall[series.overall.length - 1].t;
      const chart = page.locator(".chart").first();
      const over = chart.locator(".u-over");
      await over.scrollIntoViewIfNeeded();
      const plot = (await over.boundingBox()) as { x: number; y: number; width: number; height: number };
      await page.mouse.move(plot.x + (2 / lastT) * plot.width, plot.y + plot.height / 2);
      const atTwo = series.overall.find((p) => p.t === 2)?.rps ?? -1;
      await waitFor(async () => ((await chart.locator(".u-legend").textContent()) ?? "").startsWith("t2s"), {
        what: "the legend at 2 s",
      });
      expect(await chart.locator(".u-legend").textContent()).toContain(
        `requests/s${Number(atTwo.toPrecision(3)).toLocaleString()}`,
      );
      await page.mouse.move(0, 0);
      await figure.scrollIntoViewIfNeeded();
      await screenshot(page, `latency-heatmap-${name}`);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});

type Box = { x: number; y: number; width: number; height: number };

/**
 * Drags across `target` between the two x positions `span` gives for its box, then waits for the
 * range panel to name those seconds ("Seconds 0–N") with the API's totals of them.
 */
async function dragAcross(page: Page, target: Locator, span: (box: Box) => [number, number]): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  const box = (await target.boundingBox()) as Box;
  const [fromX, toX] = span(box);
  await page.mouse.move(fromX, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(toX, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const panel = page.getByTestId("window-summary");
  await waitFor(async () => /^Seconds 0–\d+$/.test((await panel.locator("h2").textContent()) ?? ""), {
    what: "the dragged range",
  });
  const to = Number(((await panel.locator("h2").textContent()) ?? "").split("–")[1]);
  const dragged = await getJson<RunSummary>(`${fleet.master.url}/api/runs/${runId}/summary?from=0&to=${to}`);
  await waitFor(
    async () =>
      ((await page.getByTestId("window-totals").textContent()) ?? "").startsWith(
        `${dragged.total.requests.toLocaleString("en-US")} requests`,
      ),
    { what: "the dragged range's totals" },
  );
}
