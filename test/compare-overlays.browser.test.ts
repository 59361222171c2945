import { join } from "node:path";
import type { LatencyDistribution, Timeseries } from "@volley/protocol";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// Two runs of the same scenario, B's slow request twice as slow: compare draws them over each
// other (the whole run or one request; p50, p95 or p99 over time) and the figures under the
// cursor are the API's.
let fleet: TestFleet;
let browser: Browser;
const runs = { a: "", b: "" };

async function runWith(slowMs: number): Promise<string> {
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: {
      name: "checkout",
      target: fleet.target.url,
      load: { executor: "constant-vus", vus: 2, duration: "3s" },
      requests: [
        { name: "home", path: "/hello" },
        { name: "pay", path: `/slow?ms=${slowMs}` },
      ],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await waitForRunEnd(fleet.master.url, created.body.id as string, 30_000);
  return created.body.id as string;
}

beforeAll(async () => {
  fleet = await startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist") } });
  browser = await launchBrowser();
  runs.a = await runWith(20);
  runs.b = await runWith(40);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

/** Moves the cursor to `fraction` of a chart's plot width and waits for its legend to start with `starts`. */
async function pointAt(page: Page, chart: Locator, fraction: number, starts: string): Promise<string> {
  const over = chart.locator(".u-over");
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox()) as { x: number; y: number; width: number; height: number };
  await page.mouse.move(box.x + fraction * box.width, box.y + box.height / 2);
  await waitFor(async () => ((await chart.locator(".u-legend").textContent()) ?? "").startsWith(starts), {
    what: `the legend at ${starts}`,
  });
  return (await chart.locator(".u-legend").textContent()) ?? "";
}

const three = (value: number) => Number(value.toPrecision(3)).toLocaleString("en-US");

describe("compare's overlays", () => {
  it.each(VIEWPORTS)(
    "%s: one request's distribution and p99 over time, A over B, read as the API gives them",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${fleet.master.url}/compare?a=${runs.a}&b=${runs.b}`);
      const overlays = page.getByTestId("compare-overlays");
      await overlays.locator("canvas").first().waitFor();
      const select = overlays.getByRole("combobox", { name: "Requests shown" });
      expect(await select.locator("option").allTextContents()).toEqual(["whole run", "home", "pay"]);
      await select.selectOption("pay");
      await overlays.getByRole("button", { name: "p99" }).click();
      // The distribution of "pay" alone: at its end, each run's slowest pay request.
      const [distA, distB] = await Promise.all(
        [runs.a, runs.b].map((id) =>
          getJson<LatencyDistribution>(`${fleet.master.url}/api/runs/${id}/distribution`),
        ),
      );
      const distribution = overlays.getByRole("figure", { name: /Latency by percentile, A and B \(pay\)/ });
      await waitFor(
        async () =>
          (await distribution.locator(".u-legend").textContent()) ===
          `percentilemaxA${three(distA.requests.pay.at(-1)?.ms ?? -1)} msB${three(distB.requests.pay.at(-1)?.ms ?? -1)} ms`,
        { what: "pay's distributions at their ends" },
      );
      // B's pay is about twice as slow: its p50 at least 1.5x A's.
      const p50 = (d: LatencyDistribution) => d.requests.pay.find((point) => point.p >= 50)?.ms ?? 0;
      expect(p50(distB)).toBeGreaterThan(p50(distA) * 1.5);
      // p99 over time, at the run's second 1: each run's own second 1 of "pay", from the API.
      const [seriesA, seriesB] = await Promise.all(
        [runs.a, runs.b].map((id) => getJson<Timeseries>(`${fleet.master.url}/api/runs/${id}/timeseries`)),
      );
      const latency = overlays.getByRole("figure", { name: "p99 latency (pay)" });
      const lastT = Math.max(seriesA.requests.pay.at(-1)?.t ?? 0, seriesB.requests.pay.at(-1)?.t ?? 0);
      const legend = await pointAt(page, latency, 1 / lastT, "t1s");
      const at = (series: Timeseries) => series.requests.pay.find((p) => p.t === 1)?.p99 ?? -1;
      expect(legend).toBe(`t1sA${three(at(seriesA))}B${three(at(seriesB))}`);
      await page.mouse.move(0, 0);
      await overlays.scrollIntoViewIfNeeded();
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, `compare-overlays-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
