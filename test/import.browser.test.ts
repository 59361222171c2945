import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, ROOT, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// The New run page's Import: the same importers as `volley import`, run in the browser; what
// they make lands in the editor, validated, and runs as the source describes.
let master: RunningMaster;
let worker: WorkerNode;
let target: TargetServer;
let browser: Browser;

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ webRoot: join(ROOT, "apps/web/dist") });
  worker = await startTestWorker(master, { threads: 1 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await worker?.shutdown(3000);
  await master?.close();
  await target?.close();
});

const postman = () =>
  JSON.stringify({
    info: {
      name: "Shop API",
      schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    },
    variable: [{ key: "base", value: target.url }],
    item: [
      {
        name: "Catalogue",
        item: [{ name: "item", request: { method: "GET", url: "{{base}}/items/A1" } }],
      },
      {
        name: "order",
        request: {
          method: "POST",
          url: "{{base}}/orders",
          body: { mode: "raw", raw: '{"sku":"A1"}', options: { raw: { language: "json" } } },
        },
        event: [{ listen: "test", script: { exec: ["pm.test('ok', () => {})"] } }],
      },
    ],
  });

async function importPostman(page: Page): Promise<void> {
  await page.goto(`${master.url}/new`);
  await page.getByTestId("import-open").click();
  await page.getByTestId("import-kind").selectOption("postman");
  await page
    .getByTestId("import-file")
    .setInputFiles({ name: "shop.json", mimeType: "application/json", buffer: Buffer.from(postman()) });
  await page.getByTestId("import-run").click();
  await page.getByTestId("import-notes").waitFor();
}

describe("Import on the New run page", () => {
  it("makes a Postman collection a scenario in the editor, which runs as the collection says", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchConsole(page);
    await importPostman(page);
    const notes = await page.getByTestId("import-notes").textContent();
    expect(notes).toContain("Imported from shop.json");
    expect(notes).toContain("order: its test script is not converted");
    const written = parse(await page.getByLabel("Scenario text").inputValue()) as Record<string, unknown>;
    expect(written).toMatchObject({ name: "Shop API", target: target.url });
    target.reset();
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    const id = page.url().split("/").pop() ?? "";
    await waitForRunEnd(master.url, id);
    const run = await getJson<RunDetail>(`${master.url}/api/runs/${id}`);
    expect(run.summary.total.requests).toBe(2);
    expect(target.log.map((e) => `${e.method} ${e.url} ${e.body}`)).toEqual([
      "GET /items/A1 ",
      'POST /orders {"sku":"A1"}',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows what is wrong with a source it cannot read, and changes nothing", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${master.url}/new`);
    const before = await page.getByLabel("Scenario text").inputValue();
    await page.getByTestId("import-open").click();
    await page.getByTestId("import-text").fill('{\n  "log": {\n    "entries": [,]\n  }\n}');
    await page.getByTestId("import-run").click();
    const error = await page.getByTestId("import-error").textContent();
    expect(error).toMatch(/^pasted text:3: not a HAR \(not valid JSON/);
    await page.getByTestId("import-kind").selectOption("curl");
    await page.getByTestId("import-text").fill("curl ftp://files.example.com/a");
    await page.getByTestId("import-run").click();
    await expect
      .poll(() => page.getByTestId("import-error").textContent())
      .toMatch(/not an http:\/\/ or https:\/\/ URL/);
    expect(await page.getByLabel("Scenario text").inputValue()).toBe(before);
    await page.close();
  });

  it.each(VIEWPORTS)("%s: the import panel and its notes fit the screen", async (name, viewport, scheme) => {
    const page = await browser.newPage({ viewport, colorScheme: scheme });
    await page.goto(`${master.url}/new`);
    await page.getByTestId("import-open").click();
    await page.getByTestId("import-kind").selectOption("curl");
    await page
      .getByTestId("import-text")
      .fill(`curl -X POST '${target.url}/orders' --json '{"sku":"A1"}' --retry 2`);
    await screenshot(page, `import-panel-${name}`);
    await page.getByTestId("import-run").click();
    await page.getByTestId("import-notes").waitFor();
    expect(await page.getByTestId("import-notes").textContent()).toContain(
      "curl's --retry 2 is not carried over",
    );
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, `import-notes-${name}`);
    await page.close();
  });
});
