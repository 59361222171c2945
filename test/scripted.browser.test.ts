import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, waitFor } from "./support/processes.js";

// A scripted scenario written and started from the dashboard: the editor loads on demand, a
// compile error shows with its line, the run page shows what ran.
let fleet: TestFleet;
let browser: Browser;

beforeAll(async () => {
  fleet = await startTestFleet({ master: { webRoot: join(ROOT, "apps/web/dist"), startDelayMs: 500 } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

/** Replaces the editor's text (CodeMirror's own input, as a user's paste would). */
async function setScript(page: Page, source: string): Promise<void> {
  const content = page.locator("[data-testid=script-code] .cm-content");
  await content.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.setData("text/plain", text);
    document
      .querySelector("[data-testid=script-code] .cm-content")
      ?.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, source);
}

describe("scripted scenarios in the dashboard", () => {
  let runId = "";

  it("writes a script on the New run page, shows a compile error at its line, then runs it", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchConsole(page);
    const chunks: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith(".js")) chunks.push(request.url());
    });
    await page.goto(`${fleet.master.url}/new`);
    await page.locator('input[name="target"]').fill(fleet.target.url);
    await page.locator('input[name="load.vus"]').fill("2");
    await page.locator('input[name="load.duration"]').fill("2s");
    const before = chunks.length;
    await page.getByTestId("use-script").click();
    await page.locator("[data-testid=script-code] .cm-content").waitFor();
    // The editor is its own chunk, fetched only now.
    expect(chunks.length).toBeGreaterThan(before);
    expect(await page.getByTestId("script-note").textContent()).toContain("flow.ts");

    await setScript(page, "export default async function (vu) {\n  const x = ;\n}\n");
    await page.getByTestId("start-run").click();
    await page.getByTestId("script-problem").waitFor();
    expect(await page.getByTestId("script-problem").textContent()).toMatch(/^flow\.ts:2:\d+: /);

    const script = [
      "export default async function (vu) {",
      '  const r = await vu.http.get("/hello", { name: "hello" });',
      '  vu.check("says hello", r.body === "hello world");',
      "}",
      "",
    ].join("\n");
    await setScript(page, script);
    const lines = await page.locator("[data-testid=script-code] .cm-line").allTextContents();
    expect(lines.join("\n").trim()).toBe(script.trim());
    await screenshot(page, "new-run-script");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    runId = page.url().split("/").pop() as string;
    await waitFor(async () => (await page.getByTestId("run-status").textContent()) === "finished", {
      what: "the scripted run to finish",
      timeoutMs: 30_000,
    });
    expect(await page.getByTestId("run-scripts").locator("pre").textContent()).toBe(script);
    // The only console error is the browser's note of the 400 that carried the compile error.
    expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
    await page.close();
  });

  it.each(VIEWPORTS)(
    "%s: the run page shows the script that ran; New run loads it again",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      await page.goto(`${fleet.master.url}/runs/${runId}`);
      await page.getByTestId("run-scripts").waitFor();
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      await screenshot(page, `run-script-${name}`);
      await page.goto(`${fleet.master.url}/new?from=${runId}`);
      await page.locator("[data-testid=script-code] .cm-content").waitFor();
      await waitFor(
        async () =>
          ((await page.locator("[data-testid=script-code] .cm-content").textContent()) ?? "").includes(
            "says hello",
          ),
        { what: "the run's script in the editor" },
      );
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      await screenshot(page, `new-run-script-${name}`);
      await page.close();
    },
  );
});
