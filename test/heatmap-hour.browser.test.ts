import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import { storeFinishedRun } from "@volley/master/test-support/stored-run";
import type { LatencyHeatmap, RequestStats } from "@volley/protocol";
import { RequestRecorder } from "@volley/stats";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestMaster } from "./support/in-process.js";
import { getJson, ROOT, waitFor } from "./support/processes.js";

// An hour of seconds of 20 request names, stored as the master stores a run: the heatmap's API
// reads it and the run page draws it, each timed.
const SECONDS = 3600;
const NAMES = 20;
const PER_NAME = 5;
let master: RunningMaster;
let browser: Browser;
let runId: string;

/** A second of one name: PER_NAME requests, slower in minute 30 (the spike the heatmap shows). */
function secondOf(name: string, second: number): RequestStats {
  const recorder = new RequestRecorder(name, "GET");
  const slow = second >= 1800 && second < 1860 ? 20 : 1;
  for (let i = 0; i < PER_NAME; i++)
    recorder.record((800 + ((second * 7 + i * 131) % 1200)) * slow, 200, 100, 50);
  return recorder.flush();
}

beforeAll(async () => {
  master = await startTestMaster({ webRoot: join(ROOT, "apps/web/dist") });
  browser = await launchBrowser();
  // Stored as the master stores a run (its own row builders): merging an hour of batches one
  // second at a time would take the master a couple of minutes here.
  runId = await storeFinishedRun(
    master.services.db,
    {
      name: "an hour",
      target: "http://127.0.0.1:9",
      load: { executor: "constant-vus", vus: 1, duration: "1h" },
      requests: Array.from({ length: NAMES }, (_, n) => ({ name: `request-${n}`, path: `/r/${n}` })),
    },
    SECONDS,
    (second) => Array.from({ length: NAMES }, (_, n) => secondOf(`request-${n}`, second)),
  );
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await master?.close();
});

describe("an hour of seconds of 20 request names", () => {
  it("the heatmap API counts every request once, from one stored row a second", async () => {
    const started = performance.now();
    const heatmap = await getJson<LatencyHeatmap>(`${master.url}/api/runs/${runId}/heatmap`);
    console.log(`heatmap API, ${SECONDS} s x ${NAMES} names: ${Math.round(performance.now() - started)} ms`);
    expect(heatmap.seconds).toHaveLength(SECONDS);
    expect(heatmap.counts.flat().reduce((n, c) => n + c, 0)).toBe(SECONDS * NAMES * PER_NAME);
    // Minute 30 is 20x slower: its requests sit in the upper buckets, the rest in the lower.
    const spike = heatmap.counts[1830];
    const calm = heatmap.counts[10];
    expect(spike.slice(0, 20).reduce((n, c) => n + c, 0)).toBe(0);
    expect(calm.slice(20).reduce((n, c) => n + c, 0)).toBe(0);
  });

  it.each([VIEWPORTS[0], VIEWPORTS[3]])(
    "%s: the run page draws it in under a second; the cell under the cursor reads as the API's",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      const opened = performance.now();
      await page.goto(`${master.url}/runs/${runId}`);
      const figure = page.getByTestId("latency-heatmap").locator("figure");
      await waitFor(async () => (await figure.getAttribute("data-draw-ms")) !== null, {
        what: "the heatmap drawn",
        timeoutMs: 20_000,
      });
      const drawMs = Number(await figure.getAttribute("data-draw-ms"));
      console.log(
        `${name}: heatmap drawn in ${drawMs} ms, on screen ${Math.round(performance.now() - opened)} ms after opening the page`,
      );
      expect(drawMs).toBeLessThan(1000);
      expect(Number(await figure.getAttribute("data-requests"))).toBe(SECONDS * NAMES * PER_NAME);
      // Pointing at the spike's column, in the bucket of its slowest requests.
      const heatmap = await getJson<LatencyHeatmap>(`${master.url}/api/runs/${runId}/heatmap`);
      const canvas = figure.locator("canvas");
      await canvas.scrollIntoViewIfNeeded();
      const box = (await canvas.boundingBox()) as { x: number; y: number; width: number; height: number };
      const plotW = box.width - 56 - 12;
      const plotH = box.height - 8 - 24;
      const bucket = heatmap.counts[1830].findLastIndex((c) => c > 0);
      const x = box.x + 56 + ((1830 + 0.5) / SECONDS) * plotW;
      const y = box.y + 8 + plotH - ((bucket + 0.5) / (heatmap.edgesMs.length - 1)) * plotH;
      await page.mouse.move(x, y);
      const readout = page.getByTestId("heatmap-readout");
      await readout.waitFor();
      const second = Number(await readout.getAttribute("data-second"));
      expect(Math.abs(second - 1830)).toBeLessThanOrEqual(2);
      expect(Number(await readout.getAttribute("data-bucket"))).toBe(bucket);
      const row = heatmap.counts[heatmap.seconds.indexOf(second)];
      expect(await readout.textContent()).toContain(
        `${row[bucket].toLocaleString("en-US")} requests (of ${(NAMES * PER_NAME).toLocaleString("en-US")} that second)`,
      );
      await screenshot(page, `latency-heatmap-hour-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
