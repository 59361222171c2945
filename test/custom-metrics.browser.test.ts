import { join } from "node:path";
import { metricFigures, type RunDetail } from "@volley/protocol";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// The run page's Metrics section: a script's own metrics live while the run goes, then the
// stored report's table and charts; and the slowest requests' trace links (http.tracing). At
// 1400 and 390 px, light and dark.
let fleet: TestFleet;
let browser: Browser;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 2, master: { webRoot: join(ROOT, "apps/web/dist") } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

const SCRIPT = `
export default async function (vu) {
  const started = performance.now();
  const res = await vu.http.get("/hello", { name: "hello" });
  vu.metrics.trend("cart_ms").add(performance.now() - started + (vu.number % 4) * 5);
  vu.metrics.trend("body_bytes", { unit: "bytes" }).add(res.body.length * 1000 + vu.number);
  vu.metrics.counter("orders").add(vu.number % 2 ? 2 : 1);
  vu.metrics.rate("in_stock").add(vu.iteration % 5 !== 0);
  vu.metrics.gauge("queue_depth").set((vu.iteration % 7) * 3 + vu.number);
  await vu.sleep(100);
}
`;

describe("the run page's Metrics section", () => {
  let runId = "";

  it("shows a running script's metrics live, then the stored ones as the API gives them", async () => {
    const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
      scenario: {
        name: "metrics-page",
        target: fleet.target.url,
        load: { executor: "constant-vus", vus: 6, duration: "5s" },
        script: "flow.js",
        thresholds: { "metrics.cart_ms.p95": "<1000", "metrics.in_stock.rate": ">50%" },
        http: { tracing: { propagate: "w3c", linkTemplate: "https://tempo.example/trace/{traceId}" } },
      },
      scripts: { "flow.js": SCRIPT },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    runId = created.body.id as string;
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchConsole(page);
    await page.goto(`${fleet.master.url}/runs/${runId}`);
    // Live: the section appears from the feed's seconds while the run is still running.
    await page.getByTestId("metrics-section").waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("run-status").textContent()).toBe("running");

    const report = await waitForRunEnd<RunDetail>(fleet.master.url, runId, 60_000);
    expect(report.passed).toBe(true);
    const metrics = report.summary.metrics ?? {};
    await waitFor(async () => (await page.getByTestId("run-status").textContent()) === "finished", {
      what: "the page to show the run finished",
    });
    // Every metric's row holds the report's figures, as every report formats them.
    for (const [name, metric] of Object.entries(metrics)) {
      const row = page.locator(`[data-testid=metrics] tr[data-metric="${name}"]`);
      await waitFor(
        async () =>
          (await row.locator("[data-figure]").allTextContents()).join(" | ") ===
          metricFigures(metric)
            .map((f) => `${f.label} ${f.text}`)
            .join(" | "),
        { what: `${name}'s figures to be the report's` },
      );
    }
    // A chart per metric, drawn through the run's last second that recorded it.
    const series = await getJson<{ metrics: Record<string, Array<{ t: number }>> }>(
      `${fleet.master.url}/api/runs/${runId}/timeseries`,
    );
    const charts = page.getByTestId("metrics-section").locator("figure.chart");
    expect(await charts.count()).toBe(5);
    for (const name of Object.keys(metrics)) {
      const chart = page.getByTestId("metrics-section").locator(`figure[aria-label="${name}"]`);
      expect(await chart.getAttribute("data-last-t")).toBe(String(series.metrics[name].at(-1)?.t));
    }
    // The slowest requests, each a link into the traced system, as the report lists them.
    const links = await page
      .getByTestId("slowest")
      .locator("a[data-trace]")
      .evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
    const hello = report.summary.requests.find((r) => r.name === "hello");
    expect(links).toEqual((hello?.slowest ?? []).map((s) => `https://tempo.example/trace/${s.traceId}`));
    expect(links).toHaveLength(5);
    expect(errors).toEqual([]);
    await page.close();
  });

  it.each(VIEWPORTS)(
    "%s: the section reads well and the page does not scroll sideways",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      await page.goto(`${fleet.master.url}/runs/${runId}`);
      const section = page.getByTestId("metrics-section");
      await section.locator("figure.chart canvas").first().waitFor();
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      await section.scrollIntoViewIfNeeded();
      await section.screenshot({ path: join(ROOT, `test-results/screenshots/metrics-${name}.png`) });
      const slowest = page.getByTestId("slowest-section");
      await slowest.scrollIntoViewIfNeeded();
      await slowest.screenshot({ path: join(ROOT, `test-results/screenshots/slowest-${name}.png`) });
      await screenshot(page, `run-metrics-${name}`);
      await page.close();
    },
  );
});
