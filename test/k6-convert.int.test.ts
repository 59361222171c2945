import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type Httpbin, startHttpbin } from "./support/httpbin.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, spawnCli } from "./support/processes.js";
import { startWsServer } from "./support/ws-server.js";

// k6's own examples (test/fixtures/k6), converted with `volley convert k6` and run against a
// loopback stand-in for the hosts they name: the report counts what the server received, and
// the checks pass and fail as the script means them.
let fleet: TestFleet;
let httpbin: Httpbin;
let dir: string;

beforeAll(async () => {
  [fleet, httpbin] = await Promise.all([startTestFleet({ workers: 1, threads: 2 }), startHttpbin()]);
  dir = mkdtempSync(join(tmpdir(), "volley-k6-"));
});
afterAll(async () => {
  await fleet?.close();
  await httpbin?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  httpbin.log.length = 0;
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const child = spawnCli(args, env, dir);
  const code = await child.exited;
  return { code, output: child.output.join("") };
}

/** The script with the hosts it names pointed at the loopback server. */
function pointed(text: string): string {
  const host = httpbin.url.slice("http://".length);
  return text
    .replace(/https?:\/\/(httpbin\.org|quickpizza\.grafana\.com|localhost:8080)/g, httpbin.url)
    .replace(/@httpbin\.org/g, `@${host}`)
    .replace(/domain: "httpbin\.org"/g, 'domain: "127.0.0.1"');
}

async function convert(name: string, text: string) {
  writeFileSync(join(dir, `${name}.js`), text);
  const converted = await cli(["convert", "k6", `${name}.js`, "--force"]);
  expect(converted.code, converted.output).toBe(0);
  return converted.output;
}

/** `setupRequests`: requests setup() sent (with fetch: not part of the run's statistics). */
async function convertAndRun(
  name: string,
  text: string,
  flags: string[] = [],
  env: Record<string, string> = {},
  setupRequests = 0,
) {
  const output = await convert(name, text);
  const out = join(dir, `${name}.report.json`);
  const run = await cli(["run", `${name}.yaml`, "--master", fleet.master.url, "--out", out, ...flags], env);
  // 1 is a threshold that failed: the run itself is whole.
  expect([0, 1], run.output).toContain(run.code);
  const report = JSON.parse(readFileSync(out, "utf8")) as RunDetail;
  expect(report.summary.total.requests, run.output).toBe(httpbin.log.length - setupRequests);
  return { report, output, run };
}

const checks = (report: RunDetail) =>
  Object.fromEntries((report.summary.checks ?? []).map((c) => [c.name, [c.passes, c.fails]]));
const fixture = (name: string) => readFileSync(join(ROOT, "test/fixtures/k6", `${name}.js`), "utf8");

/** Each example, the load it runs with here, and what its checks and requests come to. */
const CORPUS: Array<{
  name: string;
  flags?: string[];
  requests: number;
  checks?: Record<string, [number, number]>;
}> = [
  { name: "http_get", requests: 1 },
  {
    name: "http_verbs",
    requests: 5,
    checks: { "status is 200": [5, 0], "is verb correct": [5, 0] },
  },
  { name: "custom_metrics", requests: 1, checks: { "status is 200": [1, 0] } },
  { name: "json", requests: 1, checks: { "status is 200": [1, 0], "is key correct": [1, 0] } },
  {
    name: "html_form_post",
    requests: 1,
    checks: {
      "status is 200": [1, 0],
      "has correct name": [1, 0],
      "has correct telephone number": [1, 0],
      "has correct email": [1, 0],
      "has correct comment": [1, 0],
      "has correct toppings": [1, 0],
    },
  },
  {
    name: "http_basic_auth",
    requests: 2,
    checks: { "status is 200": [2, 0], "is authenticated": [2, 0], "is correct user": [2, 0] },
  },
  {
    name: "http_batch",
    requests: 2,
    checks: { "main page 200": [1, 0], "pi page 200": [1, 0], "pi page has right content": [1, 0] },
  },
  // 20 s of stages, run here as 4 iterations of 2 VUs (k6's --iterations and --vus).
  {
    name: "stages",
    flags: ["--iterations", "4", "--vus", "2"],
    requests: 4,
    checks: { "status is 200": [4, 0] },
  },
  { name: "thresholds", requests: 2 },
  { name: "tagging", requests: 1, checks: { "status is 200": [1, 0] } },
  // The VU's jar, request cookies, a jar of the script's own, Set-Cookie on a redirect, a cookie
  // for another domain: each check as k6 judges it.
  {
    name: "cookies",
    requests: 7,
    checks: {
      "status is 200": [6, 0],
      "has cookie 'name'": [1, 0],
      "has cookie 'name2'": [1, 0],
      "vu jar doesn't have cookie 'name'": [1, 0],
      "vu jar doesn't have cookie 'name2'": [1, 0],
      "vu jar has cookie 'name3'": [1, 0],
      "vu jar has cookie 'name4'": [1, 0],
      "has cookie 'name5'": [1, 0],
      "has cookie 'name6'": [1, 0],
      "local jar doesn't have cookie 'name5'": [1, 0],
      "local jar doesn't have cookie 'name6'": [1, 0],
      "vu jar doesn't have cookie 'name5'": [1, 0],
      "vu jar doesn't have cookie 'name6'": [1, 0],
      "has cookie 'name7'": [1, 0],
      "has cookie 'name8'": [1, 0],
      "local jar has cookie 'name7'": [1, 0],
      "local jar has cookie 'name8'": [1, 0],
      "vu jar doesn't have cookie 'name7'": [1, 0],
      "vu jar doesn't have cookie 'name8'": [1, 0],
      "has cookie 'name9'": [1, 0],
      "doesn't have cookie 'name10'": [1, 0],
    },
  },
  // maxRedirects 5 stops 6 redirects at the fifth hop (a 302, as checked); then one hop to /get.
  {
    name: "redirects",
    requests: 8,
    checks: { "is status 302": [1, 0], "is status 200": [1, 0], "url is correct": [1, 0] },
  },
  {
    name: "base64",
    requests: 0,
    checks: {
      "is std encoding correct": [1, 0],
      "is std decoding correct": [1, 0],
      "is rawstd encoding correct": [1, 0],
      "is rawstd decoding correct": [1, 0],
      "is url encoding correct": [1, 0],
      "is url decoding correct": [1, 0],
      "is rawurl encoding correct": [1, 0],
      "is rawurl decoding correct": [1, 0],
    },
  },
  { name: "crypto", requests: 0 },
  { name: "jwt", requests: 0 },
  { name: "logging", requests: 0 },
  { name: "localhost", requests: 3, checks: { "status is 200": [3, 0] } },
  // The loopback server speaks HTTP/1.1: k6 would fail this check there too.
  { name: "http_2", requests: 1, checks: { "status is 200": [1, 0], "protocol is HTTP/2": [0, 1] } },
];

describe("volley convert k6: k6's examples run on Volley", () => {
  it.each(CORPUS)("$name", async ({ name, flags, requests, checks: expected }) => {
    const { report } = await convertAndRun(name, pointed(fixture(name)), flags);
    expect(report.summary.total.requests).toBe(requests);
    if (expected) expect(checks(report)).toEqual(expected);
    expect(report.summary.total.failures).toBe(0);
  });

  it("custom metrics merged exactly, thresholds in k6's syntax carried over and judged", async () => {
    const { report } = await convertAndRun("custom_metrics", pointed(fixture("custom_metrics")), [
      "--iterations",
      "6",
      "--vus",
      "3",
    ]);
    const metrics = report.summary.metrics ?? {};
    expect(metrics.my_counter).toMatchObject({ type: "counter", count: 6 });
    expect(metrics.my_rate).toMatchObject({ type: "rate", passes: 6, fails: 0 });
    expect(metrics.my_trend).toMatchObject({ type: "trend", count: 6 });
    expect(metrics.my_gauge?.type).toBe("gauge");
    const es6 = parse(readFileSync(join(dir, "thresholds.yaml"), "utf8")) as {
      thresholds: Record<string, string>;
    };
    expect(es6.thresholds).toEqual({ p95: "<500ms" });
  });

  it("executors, exec functions, SharedArray with open(), setup data, __ENV, __VU and forEach", async () => {
    writeFileSync(
      join(dir, "users.json"),
      JSON.stringify([{ name: "ann" }, { name: "bob" }, { name: "cy" }]),
    );
    const { report, output } = await convertAndRun(
      "shop",
      `import http from "k6/http";
import { check, group, sleep } from "k6";
import { SharedArray } from "k6/data";
import { Counter } from "k6/metrics";

const users = new SharedArray("users", function () { return JSON.parse(open("./users.json")); });
const orders = new Counter("Orders-Placed");

export const options = {
  scenarios: {
    browse: { executor: "per-vu-iterations", vus: 2, iterations: 3, exec: "browse" },
    buy: { executor: "constant-arrival-rate", rate: 120, timeUnit: "1m", duration: "2s", preAllocatedVUs: 2, exec: "buy" },
  },
  thresholds: { "http_req_duration{name:item}": ["p(95)<1000"], checks: ["rate>0.99"], "Orders-Placed": ["count>=1"] },
};

export function setup() {
  const res = http.post("${httpbin.url}/post", JSON.stringify({ token: "t-1" }), { headers: { "Content-Type": "application/json" } });
  return { token: res.json().json.token };
}

function itemPath(i) { return "/anything?item=" + i; }

function visit(paths) {
  paths.forEach(function (p) { http.get("${httpbin.url}" + p, { tags: { name: "item" } }); });
}

export function browse() {
  group("browse", function () { visit([itemPath(1), itemPath(2)]); });
}

export function buy(data) {
  const user = users[(__VU + __ITER) % users.length];
  const res = http.post("${httpbin.url}/post", { user: user.name, vu: String(__VU) }, {
    headers: { Authorization: "Bearer " + data.token, "X-Key": __ENV.SHOP_KEY || "none" },
  });
  if (check(res, { "order placed": (r) => r.json().form.user === user.name && r.json().headers.Authorization === "Bearer t-1" && r.json().headers["X-Key"] === "k-9" })) orders.add(1);
  sleep(0.01);
}
`,
      [],
      { SHOP_KEY: "k-9" },
      2,
    );
    const scenario = parse(readFileSync(join(dir, "shop.yaml"), "utf8")) as Record<string, unknown>;
    expect(scenario).toMatchObject({
      env: ["SHOP_KEY"],
      scenarios: {
        browse: {
          load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
          script: "./shop.browse.ts",
        },
        buy: {
          load: { executor: "constant-arrival-rate", rate: 2, duration: "2s", maxVus: 2 },
          script: "./shop.buy.ts",
        },
      },
      thresholds: { "item.p95": "<1000ms", checks: ">0.99", "metrics.orders_placed.count": ">=1" },
    });
    expect(output).toContain('metric "Orders-Placed" is "orders_placed" in Volley');
    // setup() ran once per scenario (two POSTs not part of the run); every request the run
    // counted went to the server.
    expect(output).toContain("setup() runs once for each of the scenarios");
    const browsed = httpbin.log.filter((l) => l.startsWith("GET /anything?item="));
    const bought = httpbin.log.filter((l) => l.startsWith("POST /post")).length - 2;
    expect(browsed).toHaveLength(2 * 3 * 2);
    // 2 iterations a second for 2 s: each ran (and reached the server) or is reported dropped.
    expect(bought + report.summary.total.dropped).toBe(4);
    expect(report.summary.total.requests).toBe(browsed.length + bought);
    expect(checks(report)).toEqual({ "buy · order placed": [bought, 0] });
    expect(report.summary.metrics?.orders_placed).toMatchObject({ type: "counter", count: bought });
    expect(report.summary.groups?.some((g) => g.name.endsWith("browse") && g.requests === 6)).toBe(true);
    expect(report.passed).toBe(true);
  });

  it("discardResponseBodies and responseType: a body not kept is null, as in k6; every request still counted", async () => {
    const { report, output } = await convertAndRun(
      "discard",
      `import http from "k6/http";
import { check } from "k6";

export const options = { discardResponseBodies: true, iterations: 2 };

export default function () {
  const dropped = http.get("${httpbin.url}/get?n=1");
  check(dropped, { "dropped: 200, no body": (r) => r.status === 200 && r.body === null });
  const kept = http.get("${httpbin.url}/get?n=2", { responseType: "text" });
  check(kept, { "kept: the body": (r) => r.json().url.endsWith("/get?n=2") });
  const none = http.get("${httpbin.url}/get?n=3", { responseType: "none", tags: { name: "none" } });
  check(none, { "none: no body, headers read": (r) => r.body === null && r.headers["Content-Type"] === "application/json" });
  check(JSON.parse(JSON.stringify(kept)), { "a response as JSON": (r) => r.status === 200 && r.body === kept.body && r.timings.duration > 0 });
}
`,
    );
    expect(output).not.toContain("discardResponseBodies");
    expect(report.summary.total).toMatchObject({ requests: 6, failures: 0 });
    expect(checks(report)).toEqual({
      "dropped: 200, no body": [2, 0],
      "kept: the body": [2, 0],
      "none: no body, headers read": [2, 0],
      "a response as JSON": [2, 0],
    });
    const script = readFileSync(join(dir, "discard.ts"), "utf8");
    expect(script).toContain("k6Defaults.discardResponseBodies = true;");
  });

  it("k6/ws: the socket's callbacks, timers and messages over vu.ws, the handshake counted once", async () => {
    const sockets = await startWsServer();
    try {
      const text = fixture("websocket").replace(
        "ws://echo.websocket.org",
        `${sockets.url.replace("http", "ws")}/echo`,
      );
      const output = await convert("websocket", text);
      expect(output).not.toContain("Could not convert");
      const out = join(dir, "websocket.report.json");
      const run = await cli(["run", "websocket.yaml", "--master", fleet.master.url, "--out", out]);
      expect(run.code, run.output).toBe(0);
      const report = JSON.parse(readFileSync(out, "utf8")) as RunDetail;
      // One handshake; a message sent at open and again 500 ms after each echo, until the
      // callback's timer closes the socket at 2 s: the server got 4 or 5 of them.
      expect(sockets.counts.handshakes).toBe(1);
      expect(report.summary.total.requests).toBe(1);
      expect(checks(report)).toEqual({ "status is 101": [1, 0] });
      expect(sockets.counts.received).toBeGreaterThanOrEqual(4);
      expect(sockets.counts.received).toBeLessThanOrEqual(5);
      expect(sockets.open).toBe(0);
    } finally {
      await sockets.close();
    }
  });

  it("lists what it cannot convert: browser tests, extensions, k6's experimental sockets, HTML parsing, handleSummary", async () => {
    const browser = await convert("browser_fillform", fixture("browser_fillform"));
    expect(browser).toMatch(/Could not convert:\n {2}- k6\/browser: browser tests are not converted/);
    expect(browser).toMatch(/- a remote module \(https:\/\/jslib\.k6\.io\/k6-utils\/1\.5\.0\/index\.js\)/);
    expect(readFileSync(join(dir, "browser_fillform.ts"), "utf8")).toContain(
      "// volley convert: not converted: k6/browser: browser tests are not converted",
    );
    expect(
      await convert(
        "sockets",
        'import { WebSocket } from "k6/experimental/websockets";\nexport default function () {}\n',
      ),
    ).toMatch(/- k6\/experimental\/websockets: rewrite its sockets with vu\.ws\.connect/);
    expect(await convert("es6sample", fixture("es6sample"))).toMatch(
      /- line \d+: res\.html\(\) \(k6's HTML parsing\)/,
    );
    const extension = await convert(
      "kafka",
      'import kafka from "k6/x/kafka";\nexport default function () {}\nexport function handleSummary(data) { return {}; }\n',
    );
    expect(extension).toMatch(/- k6\/x\/kafka: an xk6 extension, which Volley cannot load/);
    expect(extension).toMatch(/- handleSummary: Volley writes its own report/);
  });

  it("names the file and line of a script that does not parse, and exits 2", async () => {
    writeFileSync(
      join(dir, "broken.js"),
      'import http from "k6/http";\n\nexport default function () {\n  http.get(;\n}\n',
    );
    const broken = await cli(["convert", "k6", "broken.js"]);
    expect(broken.code).toBe(2);
    expect(broken.output).toMatch(/volley convert: broken\.js:4: not a JavaScript module: Unexpected token/);
    cpSync(join(ROOT, "test/fixtures/k6/http_get.js"), join(dir, "again.js"));
    expect((await cli(["convert", "k6", "again.js"])).code).toBe(0);
    const clash = await cli(["convert", "k6", "again.js"]);
    expect(clash.code).toBe(2);
    expect(clash.output).toMatch(/again\.ts.* exists: --force overwrites/);
  });
});
