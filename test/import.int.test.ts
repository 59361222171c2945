import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { launchBrowser } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { spawnCli } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// `volley import` writes a scenario from a source; `volley run` runs it against a loopback server
// that records what it received: every request as the source describes it.
let fleet: TestFleet;
let target: TargetServer;
let dir: string;

beforeAll(async () => {
  [fleet, target] = await Promise.all([startTestFleet({ workers: 1, threads: 1 }), startTargetServer()]);
  dir = mkdtempSync(join(tmpdir(), "volley-import-"));
});
afterAll(async () => {
  await fleet?.close();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => target.reset());

async function cli(args: string[], env: Record<string, string> = {}) {
  const child = spawnCli(args, env);
  const code = await child.exited;
  return { code, output: child.output.join("") };
}

/** Imports, checks the header comment, runs the scenario once against the fleet; the report. */
async function importAndRun(args: string[], env: Record<string, string> = {}): Promise<RunDetail> {
  const file = join(dir, `imported-${randomBytes(3).toString("hex")}.yaml`);
  const imported = await cli(["import", ...args, "-o", file]);
  expect(imported.code, imported.output).toBe(0);
  expect(readFileSync(file, "utf8")).toMatch(/^# Imported from .+ by volley import\.\n/);
  const out = `${file}.report.json`;
  const run = await cli(["run", file, "--master", fleet.master.url, "--out", out], env);
  expect(run.code, run.output).toBe(0);
  return JSON.parse(readFileSync(out, "utf8")) as RunDetail;
}

const received = () => target.log.map((e) => ({ method: e.method, url: e.url, body: e.body }));

describe("volley import", () => {
  it("curl: the method, path, headers, body and basic credentials of the command", async () => {
    const report = await importAndRun([
      "curl",
      `curl -X PUT '${target.url}/orders/7?dry=1' -H 'Content-Type: application/json' -H 'X-Trace: abc' ` +
        `--data-raw '{"item":"A1","qty":2}' -u ann:secret --compressed -sS`,
    ]);
    expect(received()).toEqual([{ method: "PUT", url: "/orders/7?dry=1", body: '{"item":"A1","qty":2}' }]);
    const [request] = target.log;
    expect(request.headers["x-trace"]).toBe("abc");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from("ann:secret").toString("base64")}`);
    expect(request.headers["accept-encoding"]).toMatch(/gzip/);
    expect(report.summary.total.requests).toBe(1);
  });

  it("openapi: one request per operation, path and query from examples, a body made from the schema", async () => {
    const spec = join(dir, "pets.yaml");
    writeFileSync(
      spec,
      `openapi: 3.1.0
info: { title: Pets, version: "1" }
servers: [{ url: "https://pets.example.com/v2" }]
components:
  securitySchemes: { key: { type: apiKey, in: header, name: X-Api-Key } }
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: { type: string, examples: [Rex] }
        age: { type: [integer, "null"], minimum: 2 }
        born: { type: string, format: date }
security: [{ key: [] }]
paths:
  /pets/{petId}:
    parameters: [{ name: petId, in: path, required: true, schema: { type: integer }, example: 7 }]
    get:
      operationId: getPet
      parameters: [{ name: fields, in: query, schema: { type: string }, example: "name,age" }]
      responses: { "200": { description: ok } }
    delete: { responses: { "204": { description: gone } } }
  /pets:
    post:
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Pet" } } } }
      responses: { "201": { description: made } }
    get:
      parameters: [{ name: limit, in: query, required: true, schema: { type: integer, minimum: 5 } }]
      responses: { "200": { description: ok } }
`,
    );
    await importAndRun(["openapi", spec, "--target", target.url], { API_KEY: "k-123" });
    // The loopback target answers 200 to all: the 201 and 204 the API promises are not met.
    expect(received()).toEqual([
      { method: "GET", url: "/v2/pets/7?fields=name%2Cage", body: "" },
      { method: "DELETE", url: "/v2/pets/7", body: "" },
      { method: "POST", url: "/v2/pets", body: '{"name":"Rex","age":2,"born":"2026-01-01"}' },
      { method: "GET", url: "/v2/pets?limit=5", body: "" },
    ]);
    for (const request of target.log) expect(request.headers["x-api-key"]).toBe("k-123");
  });

  it("postman: folders as groups, variables written in or read from the environment, every body mode", async () => {
    const collection = join(dir, "shop.postman_collection.json");
    writeFileSync(
      collection,
      JSON.stringify({
        info: {
          name: "Shop",
          schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
        },
        variable: [
          { key: "baseUrl", value: target.url },
          { key: "sku", value: "B2" },
        ],
        auth: { type: "bearer", bearer: [{ key: "token", value: "{{apiToken}}" }] },
        item: [
          {
            name: "Account",
            item: [
              {
                name: "log in",
                request: {
                  method: "POST",
                  url: "{{baseUrl}}/login",
                  auth: { type: "noauth" },
                  body: { mode: "raw", raw: '{"user":"ann"}', options: { raw: { language: "json" } } },
                },
              },
            ],
          },
          {
            name: "item",
            request: {
              method: "GET",
              header: [
                { key: "X-Sku", value: "{{sku}}" },
                { key: "X-Off", value: "1", disabled: true },
              ],
              url: {
                raw: "{{baseUrl}}/items/{{sku}}?full=1",
                host: ["{{baseUrl}}"],
                path: ["items", "{{sku}}"],
              },
            },
          },
          {
            name: "cart",
            request: {
              method: "POST",
              url: "{{baseUrl}}/cart",
              body: {
                mode: "urlencoded",
                urlencoded: [
                  { key: "sku", value: "{{sku}}" },
                  { key: "qty", value: "2" },
                ],
              },
            },
          },
        ],
      }),
    );
    const report = await importAndRun(["postman", collection], { apiToken: "tok-9" });
    expect(received()).toEqual([
      { method: "POST", url: "/login", body: '{"user":"ann"}' },
      { method: "GET", url: "/items/B2?full=1", body: "" },
      { method: "POST", url: "/cart", body: "sku=B2&qty=2" },
    ]);
    expect(target.log[0].headers.authorization).toBeUndefined();
    expect(target.log[1].headers["x-sku"]).toBe("B2");
    expect(target.log[1].headers["x-off"]).toBeUndefined();
    expect(target.log[2].headers.authorization).toBe("Bearer tok-9");
    expect(report.summary.groups?.map((g) => [g.name, g.requests])).toEqual([["Account", 1]]);
  });

  it("har: a real Chromium recording, assets and other origins left out, think times kept, the token captured", async () => {
    const site = await startShop();
    const other = await startTargetServer();
    try {
      const har = join(dir, "shop.har");
      const browser = await launchBrowser();
      try {
        const context = await browser.newContext({ recordHar: { path: har, content: "embed" } });
        const page = await context.newPage();
        await page.goto(`${site.url}/?beacon=${encodeURIComponent(other.url)}`);
        await page.waitForSelector("#done");
        await context.close();
      } finally {
        await browser.close();
      }
      const file = join(dir, "shop.yaml");
      const imported = await cli(["import", "har", har, "-o", file]);
      expect(imported.code, imported.output).toBe(0);
      expect(imported.output).toMatch(/static assets .* left out/);
      expect(imported.output).toMatch(/other origins .* left out/);
      const scenario = parse(readFileSync(file, "utf8")) as { requests: Array<Record<string, unknown>> };
      // The page waited 1 s before ordering: a pause the scenario keeps, as long as the recording
      // says nothing the scenario sends was in flight (from the later end of the page and the
      // login to the order's start: a loaded machine shortens it, and the page may end last).
      const entries = (
        JSON.parse(readFileSync(har, "utf8")) as {
          log: { entries: Array<{ request: { url: string }; startedDateTime: string; time: number }> };
        }
      ).log.entries;
      const at = (path: string) => entries.find((e) => new URL(e.request.url).pathname === path);
      const end = (path: string) => {
        const entry = at(path);
        return Date.parse(entry?.startedDateTime ?? "") + (entry?.time ?? 0);
      };
      const recorded =
        Date.parse(at("/api/orders")?.startedDateTime ?? "") - Math.max(end("/"), end("/api/login"));
      expect(recorded).toBeGreaterThan(200);
      // The pause before the order (a slow page load may leave one before the login too).
      const ordersAt = scenario.requests.findIndex((r) => String(r.path ?? "").startsWith("/api/orders"));
      const sleep = scenario.requests[ordersAt - 1];
      expect(Math.abs(Number.parseInt(String(sleep?.sleep), 10) - recorded)).toBeLessThanOrEqual(1);
      site.log.length = 0;
      other.reset();
      const run = await cli(["run", file, "--master", fleet.master.url]);
      expect(run.code, run.output).toBe(0);
      expect(site.log.map((e) => `${e.method} ${e.url}`)).toEqual([
        "GET /?beacon=" + encodeURIComponent(other.url),
        "POST /api/login",
        "GET /api/orders?page=1",
      ]);
      // The run's login handed out a new token; the orders request sent that one, not the recorded.
      expect(site.log[2].authorization).toBe(`Bearer ${site.tokens.at(-1)}`);
      expect(site.tokens).toHaveLength(2);
      expect(other.total()).toBe(0);
    } finally {
      await site.close();
      await other.close();
    }
  });

  it("names the file and the line of a bad source, and exits 2", async () => {
    const har = join(dir, "broken.har");
    writeFileSync(har, '{\n  "log": {\n    "entries": [,]\n  }\n}\n');
    const broken = await cli(["import", "har", har]);
    expect(broken.code).toBe(2);
    expect(broken.output).toMatch(/broken\.har:3: not a HAR \(not valid JSON/);
    const spec = join(dir, "empty.yaml");
    writeFileSync(spec, "openapi: 3.0.3\ninfo: { title: x, version: '1' }\npaths: {}\n");
    const empty = await cli(["import", "openapi", spec]);
    expect(empty.code).toBe(2);
    expect(empty.output).toMatch(/empty\.yaml: has no paths/);
    const unknown = await cli(["import", "jmeter", spec]);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toMatch(/expected one of har, openapi, postman, curl, got "jmeter"/);
  });
});

interface Shop {
  url: string;
  log: Array<{ method: string; url: string; authorization?: string }>;
  tokens: string[];
  close(): Promise<void>;
}

/** A page that logs in with fetch, waits, then lists orders with the token it got; and its assets. */
async function startShop(): Promise<Shop> {
  const log: Shop["log"] = [];
  const tokens: string[] = [];
  const page = `<!doctype html><html><head><link rel="stylesheet" href="/style.css"></head><body>
<img src="/logo.png"><script>
// The user reading the page before ordering: the pause the import keeps as a sleep step.
function pause(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }
(async () => {
  const beacon = new URLSearchParams(location.search).get("beacon");
  await fetch(beacon + "/collect", { mode: "no-cors" }).catch(() => {});
  const login = await (await fetch("/api/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user: "ann" }) })).json();
  await pause(1000);
  await fetch("/api/orders?page=1", { headers: { authorization: "Bearer " + login.token } });
  document.body.insertAdjacentHTML("beforeend", '<p id="done">done</p>');
})();
</script></body></html>`;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      log.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization });
      const path = (req.url ?? "/").split("?")[0];
      if (path === "/") res.writeHead(200, { "content-type": "text/html" }).end(page);
      else if (path === "/style.css") res.writeHead(200, { "content-type": "text/css" }).end("p{color:red}");
      else if (path === "/logo.png")
        res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(16));
      else if (path === "/api/login") {
        const token = randomBytes(16).toString("hex");
        tokens.push(token);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token }));
      } else if (path === "/api/orders") {
        const ok = tokens.some((t) => req.headers.authorization === `Bearer ${t}`);
        res.writeHead(ok ? 200 : 401, { "content-type": "application/json" }).end("[]");
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    tokens,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
