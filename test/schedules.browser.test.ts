import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// The Schedules page: a schedule made from a run's name, listed with its next firing, edited,
// paused; at 1400 and 390 px, light and dark.
let fleet: TestFleet;
let browser: Browser;

beforeAll(async () => {
  fleet = await startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist") } });
  browser = await launchBrowser();
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, {
    scenario: {
      name: "nightly-shop",
      target: fleet.target.url,
      load: { executor: "shared-iterations", vus: 1, iterations: 5 },
      requests: [{ path: "/hello" }],
    },
  });
  await waitForRunEnd(fleet.master.url, created.body.id as string, 30_000);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

describe("schedules in the dashboard", () => {
  it("makes a schedule from a run's name, shows when it fires, edits and pauses it", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchConsole(page);
    await page.goto(`${fleet.master.url}/schedules`);
    await page.getByText("No schedule yet.").waitFor();
    const form = page.getByTestId("schedule-form");
    await form.getByLabel("Name").fill("nightly");
    await form.getByLabel("Runs of").selectOption("nightly-shop");
    await form.getByLabel("Cron").fill("61 3 * * *");
    await form.getByRole("button", { name: "Add schedule" }).click();
    await page.getByRole("status").getByText("cron:").waitFor();
    await form.getByLabel("Cron").fill("0 3 * * *");
    await form.getByLabel("Baseline").selectOption("last");
    await form.getByLabel("Max regression").fill("p95=10%");
    await form.getByRole("button", { name: "Add schedule" }).click();
    const row = page.locator('tr[data-schedule="nightly"]');
    await row.getByText("0 3 * * *").waitFor();
    await row.getByRole("button", { name: "Edit" }).click();
    await row.getByLabel("Cron of nightly").fill("30 4 * * 1-5");
    await row.getByRole("button", { name: "Save" }).click();
    await row.getByText("30 4 * * 1-5").waitFor();
    const [saved] = await getJson<Array<{ cron: string; nextRunAt: string }>>(
      `${fleet.master.url}/api/schedules`,
    );
    expect(saved.cron).toBe("30 4 * * 1-5");
    expect(new Date(saved.nextRunAt).getUTCHours()).toBe(4);
    await row.getByRole("button", { name: "Pause" }).click();
    await row.getByText("paused").waitFor();
    await row.getByRole("button", { name: "Resume" }).click();
    await waitFor(async () => (await row.getByText("paused").count()) === 0, {
      what: "the schedule resumed",
    });
    // The one error is the refused cron's 400, whose message the page showed above.
    expect(errors).toEqual([
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
    await page.close();
  });

  it.each(VIEWPORTS)("%s: the page fits", async (name, viewport, scheme) => {
    const page = await browser.newPage({ viewport, colorScheme: scheme });
    const errors = watchConsole(page);
    await page.goto(`${fleet.master.url}/schedules`);
    await page.locator('tr[data-schedule="nightly"]').waitFor();
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(1);
    await screenshot(page, `schedules-${name}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
