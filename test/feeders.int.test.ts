import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { getJson, sendJson, waitForRunEnd } from "./support/processes.js";
import type { TargetServer } from "./support/target-server.js";

// Test data across a fleet: two workers with two engine threads each, a loopback server that
// records what it received.
describe("feeders, bodies and env across workers and threads", () => {
  let fleet: TestFleet;
  let target: TargetServer;
  let master: RunningMaster;

  beforeAll(async () => {
    fleet = await startTestFleet({ workers: 2, threads: 2 });
    ({ target, master } = fleet);
  });
  afterAll(() => fleet.close());
  afterEach(() => target.reset());

  async function run(body: Record<string, unknown>): Promise<RunDetail> {
    const created = await sendJson("POST", `${master.url}/api/runs`, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
  }

  it("a unique CSV feeder gives each row to exactly one iteration fleet-wide, then stops", async () => {
    const rows = 1000;
    const csv = `email,password\r\n${Array.from({ length: rows }, (_, i) => `"user${i}@x.test",p${i}`).join("\r\n")}\r\n`;
    const report = await run({
      scenario: {
        name: "unique-rows",
        target: target.url,
        load: { executor: "constant-vus", vus: 8, duration: "20s" },
        data: { users: { file: "users.csv", mode: "unique", onExhausted: "stop" } },
        requests: [
          {
            name: "register",
            method: "POST",
            path: "/register",
            json: { email: "{{data.users.email}}", pw: "{{data.users.password}}" },
          },
        ],
      },
      files: { "users.csv": csv },
    });
    const seen = target.log.map((e) => JSON.parse(e.body).email as string);
    expect(seen).toHaveLength(rows);
    expect(new Set(seen).size).toBe(rows);
    expect(report.summary.total.requests).toBe(rows);
    // Every row was sent once, then every VU stopped: the run ended long before its 20 s.
    expect(report.status).toBe("finished");
    expect(report.summary.durationS).toBeLessThan(15);
    // The JSON body is a JSON request, its template values escaped into strings.
    expect(target.log[0].headers["content-type"]).toBe("application/json");
    expect(target.log.find((e) => JSON.parse(e.body).email === "user7@x.test")?.body).toBe(
      '{"email":"user7@x.test","pw":"p7"}',
    );
  });

  it("a CSV without a header line takes the columns the scenario names: every line is a row", async () => {
    const report = await run({
      scenario: {
        name: "headerless",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
        data: { users: { file: "users.csv", columns: ["user", "password"], mode: "unique" } },
        requests: [{ name: "login", path: "/echo?u={{data.users.user}}&p={{data.users.password}}" }],
      },
      files: { "users.csv": "ann,pw1\nbob,pw2\ncid,pw3\n" },
    });
    expect(report.status).toBe("finished");
    expect(target.log.map((e) => new URL(e.url, "http://x").search).sort()).toEqual([
      "?u=ann&p=pw1",
      "?u=bob&p=pw2",
      "?u=cid&p=pw3",
    ]);
  });

  it("10 VUs x 100 iterations over 4 threads and exactly 1,000 unique rows: every iteration runs, every row once", async () => {
    // 10 VUs split 3, 3, 2, 2 over the threads; dealt by threads alone the rows went 250 each and
    // the two 3-VU threads ran dry: 900 requests, no warning.
    const csv = `id\n${Array.from({ length: 1000 }, (_, i) => `r${i}`).join("\n")}\n`;
    const report = await run({
      scenario: {
        name: "unique-exact",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 10, iterations: 100 },
        data: { users: { file: "users.csv", mode: "unique" } },
        requests: [{ name: "row", path: "/row/{{data.users.id}}" }],
      },
      files: { "users.csv": csv },
    });
    expect(report.status).toBe("finished");
    expect(report.summary.total.requests).toBe(1000);
    const paths = target.log.filter((e) => e.url.startsWith("/row/")).map((e) => e.url);
    expect(paths).toHaveLength(1000);
    expect(new Set(paths).size).toBe(1000);
  });

  it("a scenario's own unique feeder: its rows go once each to its iterations; other scenarios take none", async () => {
    const rows = 300;
    const report = await run({
      scenario: {
        name: "own-data",
        target: target.url,
        scenarios: {
          signup: {
            load: { executor: "constant-vus", vus: 4, duration: "20s" },
            data: {
              users: {
                rows: Array.from({ length: rows }, (_, i) => ({ email: `u${i}@x.test` })),
                mode: "unique",
              },
            },
            requests: [{ name: "register", path: "/register/{{data.users.email}}" }],
          },
          browse: {
            load: { executor: "per-vu-iterations", vus: 4, iterations: 100 },
            requests: [{ name: "look", path: "/look" }],
          },
        },
      },
    });
    const registered = target.log.filter((e) => e.url.startsWith("/register/")).map((e) => e.url);
    expect(registered).toHaveLength(rows);
    expect(new Set(registered).size).toBe(rows);
    // Browse read no feeder: it ran every iteration although the rows ran out.
    expect(target.counts.get("/look")).toBe(400);
    expect(report.status).toBe("finished");
    expect(report.summary.total.requests).toBe(rows + 400);
  });

  it("sequential and random feeders, form bodies, env values that are never stored", async () => {
    const report = await run({
      scenario: {
        name: "mixed-data",
        target: target.url,
        env: ["VOLLEY_TEST_KEY"],
        load: { executor: "per-vu-iterations", vus: 4, iterations: 5 },
        data: {
          skus: { rows: [{ sku: "A1" }, { sku: "B2" }, { sku: "C 3&" }], mode: "sequential" },
          colors: { rows: [{ c: "red" }, { c: "blue" }], mode: "random" },
        },
        requests: [
          {
            name: "cart",
            method: "POST",
            path: "/cart",
            headers: { "x-api-key": "{{env.VOLLEY_TEST_KEY}}" },
            form: {
              sku: "{{data.skus.sku}}",
              color: "{{data.colors.c}}",
              tag: "{{randomItem x y}}",
              id: "{{randomString 8}}",
              topping: ["ham", "{{data.colors.c}} olives"],
            },
          },
        ],
      },
      env: { VOLLEY_TEST_KEY: "s3cret-value" },
    });
    expect(report.summary.total.requests).toBe(20);
    expect(target.log).toHaveLength(20);
    const forms = target.log.map((e) => new URLSearchParams(e.body));
    expect(target.log.every((e) => e.headers["content-type"] === "application/x-www-form-urlencoded")).toBe(
      true,
    );
    expect(target.log.every((e) => e.headers["x-api-key"] === "s3cret-value")).toBe(true);
    // Sequential: each VU walks the rows from its own offset, so all three appear, decoded right.
    expect(new Set(forms.map((f) => f.get("sku")))).toEqual(new Set(["A1", "B2", "C 3&"]));
    expect(forms.every((f) => ["red", "blue"].includes(f.get("color") ?? ""))).toBe(true);
    expect(forms.every((f) => ["x", "y"].includes(f.get("tag") ?? ""))).toBe(true);
    expect(forms.every((f) => /^[A-Za-z0-9]{8}$/.test(f.get("id") ?? ""))).toBe(true);
    // A list is the field once per value, in order.
    expect(
      forms.every((f) => f.getAll("topping")[0] === "ham" && / olives$/.test(f.getAll("topping")[1])),
    ).toBe(true);
    // The value never reaches the database or the reports.
    const stored = await getJson<RunDetail>(`${master.url}/api/runs/${report.id}`);
    expect(JSON.stringify(stored)).not.toContain("s3cret-value");
    expect(JSON.stringify(stored.scenario)).toContain("{{env.VOLLEY_TEST_KEY}}");
    const html = await (await fetch(`${master.url}/api/runs/${report.id}/report.html`)).text();
    expect(html).not.toContain("s3cret-value");
  });

  it("multipart bodies: templated text fields and a file sent from memory, as the server parsed them", async () => {
    const receipt = "%PDF-1.4 receipt ✓ line two\n";
    const report = await run({
      scenario: {
        name: "multipart",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        requests: [
          {
            name: "upload",
            method: "POST",
            path: "/receipt",
            multipart: {
              note: "from vu {{vu}}",
              file: { file: "receipt.pdf", contentType: "application/pdf" },
            },
          },
        ],
      },
      attachments: { "receipt.pdf": Buffer.from(receipt).toString("base64") },
    });
    expect(report.summary.total.requests).toBe(6);
    expect(target.log).toHaveLength(6);
    for (const entry of target.log) {
      const type = String(entry.headers["content-type"]);
      expect(type).toMatch(/^multipart\/form-data; boundary=volley-[0-9a-f]+$/);
      // Parsed the way a server does it.
      const form = await new Response(entry.body, { headers: { "content-type": type } }).formData();
      expect(form.get("note")).toMatch(/^from vu [12]$/);
      const file = form.get("file") as File;
      expect(file.name).toBe("receipt.pdf");
      expect(file.type).toBe("application/pdf");
      expect(await file.text()).toBe(receipt);
    }
    const missing = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: {
        name: "multipart-missing",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ method: "POST", path: "/r", multipart: { f: { file: "nope.bin" } } }],
      },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([
      {
        path: "requests[0].multipart",
        message:
          'nope.bin was not sent with the scenario (volley run sends it; the API takes it in "attachments", base64)',
      },
    ]);
  });

  it("bad data is a 400 naming the file and line, the field or the variable; nothing is started", async () => {
    const scenario = (extra: Record<string, unknown>) => ({
      name: "bad-data",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
      requests: [{ path: "/x/{{data.users.email}}" }],
      ...extra,
    });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        {
          scenario: scenario({ data: { users: { file: "users.csv" } } }),
          files: { "users.csv": 'email\n"a@x\nb' },
        },
        "data.users.file",
        /users\.csv: line 2: a quoted field is not closed/,
      ],
      [
        {
          scenario: scenario({ data: { users: { file: "users.csv" } } }),
          files: { "users.csv": "email,name\na@x\n" },
        },
        "data.users.file",
        /users\.csv: line 2: 1 fields where the header has 2/,
      ],
      [
        { scenario: scenario({ data: { users: { file: "users.csv" } } }) },
        "data.users.file",
        /users\.csv was not sent/,
      ],
      [
        {
          scenario: scenario({ data: { users: { file: "users.csv" } } }),
          files: { "users.csv": "mail\nx\n" },
        },
        "requests[0].path",
        /has no column "email"/,
      ],
      [
        { scenario: scenario({ data: { users: { rows: [{ mail: "x" }] } } }) },
        "requests[0].path",
        /feeder "users" has no field "email"/,
      ],
      [{ scenario: scenario({}) }, "requests[0].path", /no feeder "users" in data/],
      [
        {
          scenario: scenario({ data: { users: { rows: [{ email: "x" }] } } }),
          attachments: { "a.pdf": "not base64!" },
        },
        "attachments.a.pdf",
        /must be base64/,
      ],
      [
        {
          scenario: {
            ...scenario({ data: { users: { rows: [{ email: "x" }] } } }),
            env: ["NOT_SET_ANYWHERE_1"],
          },
        },
        "env",
        /NOT_SET_ANYWHERE_1 is not set/,
      ],
    ];
    for (const [body, path, message] of cases) {
      const answer = await sendJson("POST", `${master.url}/api/runs`, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      const details = answer.body.details as Array<{ path: string; message: string }>;
      expect(details.find((d) => d.path === path)?.message ?? JSON.stringify(details)).toMatch(message);
    }
    expect(target.total()).toBe(0);
  });
});
