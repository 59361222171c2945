import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { WorkerNode } from "@volley/worker";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, watchConsole } from "./support/browser.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { CLI, ROOT, sendJson, waitFor, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// The dashboard in Debian's Chromium against a real master, worker and loopback target.
let target: TargetServer;
let master: RunningMaster;
let browser: Browser;
let page: Page;
let consoleErrors: string[];
const workers: WorkerNode[] = [];

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({
    webRoot: join(ROOT, "apps/web/dist"),
    startDelayMs: 500,
    workerCommand: { command: process.execPath, args: [CLI, "worker"] },
    maxLocalWorkers: 2,
  });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  consoleErrors = watchConsole(page);
});
afterAll(async () => {
  await browser?.close();
  for (const worker of workers) await worker.shutdown(2000);
  await master?.close();
  await target?.close();
});

const statValue = async (testId: string) =>
  (await page.getByTestId(testId).locator(".stat-value").textContent()) ?? "";

describe("dashboard", () => {
  it("shows a worker appear on /workers, with the command to add one", async () => {
    await page.goto(`${master.url}/workers`);
    await page.getByText("No worker is connected.").waitFor();
    workers.push(await startTestWorker(master, { name: "browser-worker", threads: 2 }));
    await page.locator('tr[data-worker="browser-worker"]').waitFor({ timeout: 5000 });
    await expectText(page.getByTestId("worker-command"), `pnpm volley worker --master ${master.url}`);
    // A loopback master says plainly that it only takes workers on its own machine.
    await expectText(page.getByTestId("worker-reach"), "only takes workers on this");
    await screenshot(page, "workers");
  });

  it("shows a validation error at the field, then starts a run from the form", async () => {
    await page.goto(`${master.url}/new`);
    const targetField = page.locator('input[name="target"]');
    await targetField.fill("not-a-url");
    const error = page.locator('[data-path="target"] .field-error');
    await error.waitFor();
    expect(await error.textContent()).toContain("is not a URL");
    await expectText(page.getByTestId("validation-errors"), "target");
    expect(await page.getByTestId("start-run").isDisabled()).toBe(true);
    await screenshot(page, "new-run-error");

    // Text that does not parse: where, with the line and a caret; the last parse's field errors go.
    const text = page.getByLabel("Scenario text");
    const valid = await text.inputValue();
    await text.fill("name: demo\ntarget: [unclosed\n");
    await expectText(page.getByTestId("syntax-error"), "Not valid YAML at line");
    const syntax = (await page.getByTestId("syntax-error").textContent()) ?? "";
    expect(syntax).not.toMatch(/:\s*$/);
    expect(await page.locator(".syntax-snippet").textContent()).toMatch(/\n\s*\^$/);
    expect(await page.getByTestId("validation-errors").count()).toBe(0);
    await screenshot(page, "new-run-syntax-error");
    await text.fill(valid);
    await expectText(page.getByTestId("validation-errors"), "target");

    await targetField.fill(target.url);
    await page.locator('input[name="name"]').fill("browser-run");
    await page.locator('input[name="load.vus"]').fill("4");
    await page.locator('input[name="load.duration"]').fill("30s");
    await page.locator('input[name="requests[0].path"]').fill("/hello");
    await page.getByTestId("validation-errors").waitFor({ state: "detached" });
    await expectText(page.getByLabel("Scenario text"), "browser-run");
    await screenshot(page, "new-run");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
  });

  it("moves the live numbers, stops the run and shows the report", async () => {
    await expectText(page.getByTestId("run-status"), "running");
    const first = Number((await waitForNumber("stat-requests")).replace(/,/g, ""));
    const second = await waitFor(
      async () => {
        const now = Number((await statValue("stat-requests")).replace(/,/g, ""));
        return now > first ? now : undefined;
      },
      { what: "the live request count to move", timeoutMs: 10_000 },
    );
    expect(second).toBeGreaterThan(first);
    // The verdict is judged live on the merged figures, not left as the page found it (0 requests).
    await waitFor(
      async () =>
        /[1-9][\d,]* requests in \d/.test((await page.getByTestId("saturation-warning").textContent()) ?? ""),
      { what: "the live verdict to count the requests", timeoutMs: 10_000 },
    );
    // The workers of the run show their requests live too, and their active VUs of the ceiling
    // once their heartbeats say all four run.
    const workerCells = () =>
      page.getByTestId("run-workers").locator("tbody tr").first().locator("td").allTextContents();
    const cells = await waitFor(
      async () => {
        const row = await workerCells();
        return row[3] === "4 of 4" ? row : undefined;
      },
      { what: "the worker's row to say 4 of 4 VUs", timeoutMs: 10_000 },
    );
    expect(Number(cells[4].replace(/,/g, ""))).toBeGreaterThan(0);
    // CPU now with the peak so far (never below now).
    // The VUs card says the same as the workers' rows: active now.
    expect(await statValue("stat-vus")).toBe("4");
    const cpu = /^(\d+) % · (\d+) %$/.exec(cells[6]);
    expect(cpu, cells[6]).not.toBeNull();
    expect(Number(cpu?.[2])).toBeGreaterThanOrEqual(Number(cpu?.[1]));
    await page.locator("canvas").first().waitFor();
    await screenshot(page, "run-live");
    await queueWhileBusy();
    await page.getByRole("button", { name: "Stop" }).click();
    await expectText(page.getByTestId("run-status"), "stopped", 20_000);
    await expectText(page.getByTestId("run-workers").locator("thead"), "VUs (max)");
    await page.getByTestId("download-json").waitFor();
    await screenshot(page, "run-report");
    const download = page.waitForEvent("download");
    await page.getByTestId("download-json").click();
    const file = await (await download).path();
    const report = JSON.parse(readFileSync(file, "utf8"));
    expect(report.name).toBe("browser-run");
    expect(report.status).toBe("aborted");
    expect(report.stopReason).toBe("user");
    expect(report.summary.total.requests).toBe(target.total());
    // The history says it the same way: stopped by the user, not aborted by a fault.
    await page.goto(`${master.url}/runs`);
    await expectText(page.locator("tbody tr", { hasText: "browser-run" }), "stopped", 10_000);
  });

  it("compares two runs picked on the history page", async () => {
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "browser-second",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 50 },
        requests: [{ name: "GET /hello", path: "/hello" }],
      },
    });
    await waitForRunEnd(master.url, created.body.id as string);
    await page.goto(`${master.url}/runs`);
    const rows = page.locator("tr[data-run]").filter({ hasText: /browser-(second|run)/ });
    await rows.nth(1).waitFor();
    await screenshot(page, "history");
    await rows.nth(0).locator('input[type="checkbox"]').check();
    await rows.nth(1).locator('input[type="checkbox"]').check();
    // The first tick is A, the second B; a swap turns them round, and the URL says so.
    const [first, second] = await Promise.all([0, 1].map((i) => rows.nth(i).getAttribute("data-run")));
    expect(await rows.nth(0).getByTestId("compare-role").textContent()).toBe("A");
    expect(await rows.nth(1).getByTestId("compare-role").textContent()).toBe("B");
    await page.getByTestId("swap-selected").click();
    expect(await rows.nth(0).getByTestId("compare-role").textContent()).toBe("B");
    expect(await page.getByTestId("compare-help").textContent()).toContain("A third tick replaces A.");
    await page.getByTestId("compare-selected").click();
    await page.waitForURL(/\/compare\?a=.+&b=.+/);
    expect(new URL(page.url()).searchParams.get("a")).toBe(second);
    expect(new URL(page.url()).searchParams.get("b")).toBe(first);
    await page.getByTestId("compare-table").first().waitFor();
    await expectText(page.getByTestId("compare-table").first(), "Throughput");
    // Every part in one table, and the whole run's table above it: A, B and Change share their
    // columns down the page.
    await expectText(page.getByTestId("compare-parts"), "GET /hello");
    const columnX = await page.evaluate(() =>
      Array.from(document.querySelectorAll(".compare-table tbody tr:not(.part-row)")).map((row) =>
        Math.round((row as HTMLTableRowElement).cells[2].getBoundingClientRect().x),
      ),
    );
    expect(columnX.length).toBeGreaterThan(11);
    expect(new Set(columnX).size).toBe(1);
    // The charts keep their distance from the table above them.
    const tableBottom = (await page.getByTestId("compare-table").boundingBox()) as {
      y: number;
      height: number;
    };
    const chartTop = (await page.locator(".chart-grid").first().boundingBox()) as { y: number };
    expect(chartTop.y - (tableBottom.y + tableBottom.height)).toBeGreaterThanOrEqual(12);
    // B's whole distribution against A's percentiles, with a judgement per row.
    const p95 = page.getByTestId("compare-shift").locator('tr[data-percentile="p95"]');
    expect(await p95.textContent()).toMatch(
      /^p95[\d.]+ ms[\d.]+ %[\d.]+ %-?[\d.]+(within noise|B slower|B faster)$/,
    );
    await screenshot(page, "compare");
  });

  it("overview shows the last run; no page logged a console error", async () => {
    await page.goto(master.url);
    await page.getByText("Last run:").waitFor();
    await screenshot(page, "overview");
    expect(consoleErrors).toEqual([]);
  });

  it("adds a local worker from the page and retires it", async () => {
    await page.goto(`${master.url}/workers`);
    await page.getByTestId("add-local-workers").click();
    await expectText(page.getByTestId("workers-message"), "Starting local-");
    const row = page.locator("tr[data-worker^='local-']");
    await row.locator(".state-ready").waitFor({ timeout: 20_000 });
    // The notice follows the workers: "ready" once they are, then it goes.
    await expectText(page.getByTestId("workers-message"), "ready");
    await page.getByTestId("workers-message").waitFor({ state: "detached", timeout: 8000 });
    expect(await row.locator(".badge").first().textContent()).toContain("local");
    await screenshot(page, "workers-local");
    await row.getByRole("button", { name: "Retire" }).click();
    await row.waitFor({ state: "detached", timeout: 10_000 });
    await waitFor(() => master.services.localWorkers.running === 0, {
      what: "the local worker process to exit",
    });
  });

  it("fits a phone-width screen without sideways scrolling, in light and dark", async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    try {
      const { runs } = await (await fetch(`${master.url}/api/runs?limit=1`)).json();
      for (const [name, path] of [
        ["phone-run", `/runs/${runs[0].id}`],
        ["phone-new", "/new"],
        ["phone-workers", "/workers"],
        ["phone-history", "/runs"],
      ]) {
        await phone.goto(`${master.url}${path}`);
        await phone.locator("main h1").waitFor();
        // Laid out with its data: nothing more is being fetched.
        await phone.waitForLoadState("networkidle");
        const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, path).toBeLessThanOrEqual(1);
        // Big numbers stay whole inside their cards ("1,769 req/s" on one line, not cut).
        const cards = await phone.evaluate(() =>
          Array.from(document.querySelectorAll(".stat-value")).map((el) => {
            const style = getComputedStyle(el);
            return {
              fits: el.scrollWidth <= el.clientWidth + 1,
              oneLine:
                el.getBoundingClientRect().height <= Number.parseFloat(style.lineHeight || "0") * 1.5 ||
                el.getBoundingClientRect().height < 40,
            };
          }),
        );
        for (const card of cards) expect(card, path).toEqual({ fits: true, oneLine: true });
        if (path === "/workers") {
          // The join command and its Copy button are whole on screen, not cut off.
          for (const box of [
            await phone.getByTestId("worker-command").boundingBox(),
            await phone.getByRole("button", { name: "Copy" }).boundingBox(),
          ]) {
            expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
          }
          const command = phone.getByTestId("worker-command");
          expect(await command.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
        }
        await screenshot(phone, name);
      }
      const background = await phone.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe("rgb(18, 21, 27)");
    } finally {
      await phone.close();
    }
  });

  it("shows when the live socket is lost and reconnects by itself", async () => {
    await page.goto(`${master.url}/workers`);
    await page.locator('tr[data-worker="browser-worker"]').waitFor();
    master.services.live.closeAll();
    await page.getByTestId("connection-lost").waitFor({ timeout: 5000 });
    await page.getByTestId("connection-lost").waitFor({ state: "detached", timeout: 10_000 });
    expect(consoleErrors.filter((e) => !e.includes("WebSocket"))).toEqual([]);
  });
});

/**
 * While "browser-run" is in progress: the New run page says so (with a link) and offers to queue;
 * a queued run's page says where it stands, and Cancel takes it out of line.
 */
async function queueWhileBusy(): Promise<void> {
  const other = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    // The overview, opened mid-run, follows the same live feed as the run page: the same VUs,
    // and its charts reach the same second.
    await other.goto(master.url);
    await other.getByText("Active run:").waitFor();
    await expectText(other.getByTestId("stat-vus").locator(".stat-value"), "4");
    const lastSecond = (p: Page) => p.locator("figure.chart").first().getAttribute("data-last-t");
    await waitFor(
      async () =>
        Number(await lastSecond(other)) >= Number(await lastSecond(page)) - 1 &&
        Number(await lastSecond(other)) >= 2,
      { what: "the overview's chart to reach the run page's second", timeoutMs: 10_000 },
    );
    await other.goto(`${master.url}/new`);
    await expectText(other.getByTestId("run-in-progress"), "A run is in progress: browser-run");
    expect(await other.getByTestId("run-in-progress").locator("a").first().getAttribute("href")).toMatch(
      /^\/runs\//,
    );
    expect(await other.getByTestId("start-run").textContent()).toBe("Queue");
    await screenshot(other, "new-run-busy");
    const queued = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "browser-queued",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ path: "/hello" }],
      },
      queue: true,
    });
    expect(queued.body.status).toBe("queued");
    await expectText(other.getByTestId("run-in-progress"), "1 run is queued");
    await expectText(page.getByTestId("queued-count"), "1 queued");
    await other.goto(`${master.url}/runs/${queued.body.id}`);
    await expectText(other.getByTestId("queued-note"), "number 1 in line");
    await expectText(other.getByTestId("queued-note"), "browser-run");
    await screenshot(other, "run-queued");
    await other.getByTestId("stop-run").click();
    await expectText(other.getByTestId("run-status"), "cancelled");
    await page.getByTestId("queued-count").waitFor({ state: "detached" });
  } finally {
    await other.close();
  }
}

async function expectText(
  locator: ReturnType<Page["locator"]>,
  text: string,
  timeout = 10_000,
): Promise<void> {
  let last = "";
  await waitFor(
    async () => {
      last = (await locator.textContent().catch(() => "")) ?? "";
      if (!last) last = await locator.evaluate((el) => (el as HTMLTextAreaElement).value).catch(() => "");
      return last.includes(text);
    },
    { what: `"${text}" on the page`, timeoutMs: timeout },
  ).catch(() => {
    throw new Error(`expected "${text}" in "${last}"`);
  });
}

async function waitForNumber(testId: string): Promise<string> {
  return waitFor(
    async () => {
      const value = await statValue(testId);
      return Number(value.replace(/,/g, "")) > 0 ? value : undefined;
    },
    { what: `${testId} above zero`, timeoutMs: 15_000, intervalMs: 200 },
  );
}

describe("dashboard behind a token", () => {
  it("asks for the token when the master listens beyond loopback, then shows the pages", async () => {
    const token = "browser-login-token-1";
    const secured = await startTestMaster({ host: "0.0.0.0", token, webRoot: join(ROOT, "apps/web/dist") });
    const page = await browser.newPage();
    try {
      const url = secured.url.replace("0.0.0.0", "127.0.0.1");
      await page.goto(`${url}/workers`);
      await page.getByText("Sign in with your user name and password.").waitFor();
      await page.getByRole("button", { name: "Use the master's token instead" }).click();
      await page.getByLabel("Token").fill("wrong-token");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByText("wrong token").waitFor();
      await screenshot(page, "login");
      await page.getByLabel("Token").fill(token);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.locator("main h1", { hasText: "Workers" }).waitFor();
      // Listening beyond loopback, the page offers the command to any machine.
      await expectText(page.getByTestId("worker-reach"), "On any machine that can reach");
      // The cookie is an opaque session, never the token (browsers send it to every port of the host).
      const cookies = await page.context().cookies();
      expect(cookies.some((c) => c.name === "volley_session" && c.httpOnly && c.value !== token)).toBe(true);
      expect(cookies.some((c) => c.value.includes(token))).toBe(false);
      await screenshot(page, "logged-in");
      await page.getByRole("button", { name: "Log out" }).click();
      await page.getByText("Sign in with your user name and password.").waitFor();
      expect((await page.context().cookies()).some((c) => c.name === "volley_session")).toBe(false);
    } finally {
      await page.close();
      await secured.close();
    }
  });
});
