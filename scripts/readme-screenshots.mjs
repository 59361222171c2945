#!/usr/bin/env node
// `pnpm screenshots`: retakes the README's screenshots (docs/screenshots/) from a real quick start
// (`volley start` on an ephemeral port, in a scratch folder) driving a loopback target, in
// Debian's Chromium: a live run, its report, the overview, history, compare and workers pages,
// at 1400 px light and 390 px dark. Needs `pnpm build`, Redis and /usr/bin/chromium.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
// Playwright is the test package's dependency: resolve it from there.
const { chromium } = createRequire(join(root, "test/package.json"))("playwright-core");
const out = join(root, "docs/screenshots");
mkdirSync(out, { recursive: true });
const children = [];
const started = (child, pattern) =>
  new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}: ${text}`)), 30_000);
    for (const stream of [child.stdout, child.stderr]) {
      stream.on("data", (d) => {
        text += d;
        const match = pattern.exec(text);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      });
    }
  });

const target = spawn(process.execPath, [join(root, "test/support/target-main.mjs"), "127.0.0.1", "0"]);
children.push(target);
const [, targetUrl] = await started(target, /target listening on (\S+)/);
const volley = spawn(process.execPath, [join(root, "apps/cli/dist/bin.js"), "start", "--port", "0"], {
  cwd: mkdtempSync(join(tmpdir(), "volley-screens-")),
  env: { ...process.env, VOLLEY_LOG_LEVEL: "warn" },
});
children.push(volley);
const [, url] = await started(volley, /open (http:\/\/\S+)/);
const api = async (path, body) => {
  const response = await fetch(`${url}${path}`, {
    method: body ? "POST" : "GET",
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return response.json();
};
const scenario = (name, vus) => ({
  name,
  target: `http://${targetUrl}`,
  load: { executor: "constant-vus", vus, duration: "20s", rampUp: "5s" },
  thinkTime: "5ms..15ms",
  requests: [
    { name: "home", path: "/" },
    { name: "login", method: "POST", path: "/login", json: { user: "u{{vu}}" } },
    { name: "orders", path: "/orders?page={{iter}}" },
  ],
  thresholds: { p95: "<200ms", errorRate: "<1%" },
});
const waitEnd = async (id) => {
  for (let i = 0; i < 120; i++) {
    const run = await api(`/api/runs/${id}`);
    if (["finished", "failed", "aborted"].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`run ${id} did not end`);
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const views = [
  ["", { width: 1400, height: 900 }, "light"],
  ["-phone-dark", { width: 390, height: 844 }, "dark"],
];
const shoot = async (path, name, wait = 1200) => {
  for (const [suffix, viewport, colorScheme] of views) {
    const page = await browser.newPage({ viewport, colorScheme });
    await page.goto(`${url}${path}`);
    await page.waitForTimeout(wait);
    await page.screenshot({ path: join(out, `${name}${suffix}.png`), fullPage: suffix === "" });
    await page.close();
  }
  console.log(`screenshots: ${name}`);
};
try {
  for (let i = 0; i < 60; i++) {
    const workers = await api("/api/workers");
    if (workers.some((w) => w.state === "ready")) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const first = await api("/api/runs", { scenario: scenario("checkout", 20) });
  if (!first.id) throw new Error(`the run was refused: ${JSON.stringify(first)}`);
  await new Promise((r) => setTimeout(r, 9000));
  await shoot(`/runs/${first.id}`, "run-live");
  await shoot("/", "overview");
  await waitEnd(first.id);
  await shoot(`/runs/${first.id}`, "run");
  const second = await api("/api/runs", { scenario: scenario("checkout", 30) });
  await waitEnd(second.id);
  await shoot("/runs", "history");
  await shoot(`/compare?a=${first.id}&b=${second.id}`, "compare");
  await shoot("/new", "new-run");
  await shoot("/workers", "workers");
} finally {
  await browser.close();
  for (const child of children) child.kill("SIGINT");
}
