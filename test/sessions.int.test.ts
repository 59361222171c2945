import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// Browser-like sessions, checked on what the server received: a cookie jar per VU, redirects
// followed hop by hop, compressed bodies decoded before captures.
describe("sessions: cookies, redirects, compression", () => {
  let fleet: TestFleet;
  let target: TargetServer;
  let master: RunningMaster;

  beforeAll(async () => {
    fleet = await startTestFleet({ threads: 2 });
    ({ target, master } = fleet);
  });
  afterAll(() => fleet.close());
  afterEach(() => target.reset());

  async function run(scenario: Record<string, unknown>): Promise<RunDetail> {
    const created = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: { target: target.url, ...scenario },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return waitForRunEnd<RunDetail>(master.url, created.body.id as string, 60_000);
  }

  it("each VU keeps its own cookies and sends them back by path; cookies: false sends none", async () => {
    const report = await run({
      name: "cookies",
      load: { executor: "per-vu-iterations", vus: 6, iterations: 3 },
      requests: [
        { name: "set", path: "/cookie/set?name=sid&value=vu{{vu}}&path=/" },
        { name: "scoped", path: "/cookie/set?name=cart&value=c{{vu}}&path=/shop" },
        { name: "home", path: "/home?vu={{vu}}" },
        { name: "shop", path: "/shop/view?vu={{vu}}" },
      ],
    });
    expect(report.summary.total.failures).toBe(0);
    const cookieOf = (prefix: string) =>
      target.log
        .filter((e) => e.url.startsWith(prefix))
        .map((e) => [new URL(e.url, "http://x").searchParams.get("vu"), e.headers.cookie]);
    for (const [vu, cookie] of cookieOf("/home")) expect(cookie).toBe(`sid=vu${vu}`);
    // The /shop cookie goes only under /shop, and first (longer path).
    for (const [vu, cookie] of cookieOf("/shop/view")) expect(cookie).toBe(`cart=c${vu}; sid=vu${vu}`);

    target.reset();
    await run({
      name: "no-cookies",
      http: { cookies: false },
      load: { executor: "per-vu-iterations", vus: 2, iterations: 1 },
      requests: [{ path: "/cookie/set?name=sid&value=x&path=/" }, { path: "/home" }],
    });
    expect(target.log.find((e) => e.url === "/home")?.headers.cookie).toBeUndefined();
  });

  it("cookies: { reset: iteration } empties each VU's jar at every iteration; reset: vu keeps it", async () => {
    // Each iteration looks first, then is given a cookie: what the look sends is what was kept.
    const requests = [
      { name: "look", path: "/look?iter={{iter}}" },
      { name: "give", path: "/cookie/set?name=sid&value=it{{iter}}&path=/" },
    ];
    const looks = () =>
      target.log
        .filter((e) => e.url.startsWith("/look"))
        .map((e) => [new URL(e.url, "http://x").searchParams.get("iter"), e.headers.cookie ?? null]);
    for (const [reset, expected] of [
      [
        "iteration",
        [
          ["0", null],
          ["1", null],
          ["2", null],
        ],
      ],
      [
        "vu",
        [
          ["0", null],
          ["1", "sid=it0"],
          ["2", "sid=it1"],
        ],
      ],
    ] as const) {
      target.reset();
      const report = await run({
        name: `reset-${reset}`,
        http: { cookies: { reset } },
        load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
        requests,
      });
      expect(report.summary.total).toMatchObject({ requests: 6, failures: 0 });
      expect(looks()).toEqual(expected);
    }
  });

  it("follows redirects hop by hop under the request's name; 303 after a POST becomes GET", async () => {
    const report = await run({
      name: "redirects",
      http: { followRedirects: 3 },
      load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
      requests: [
        { name: "chain", path: "/redirect?to=%2Fredirect%3Fto%3D%252Fhello" },
        { name: "post", method: "POST", path: "/redirect?code=303&to=/echo", body: "payload" },
        { name: "off-site", path: "/redirect?to=http://other.invalid/x" },
      ],
    });
    const byName = Object.fromEntries(report.summary.requests.map((r) => [r.name, r.requests]));
    // chain: /redirect -> /redirect -> /hello, three requests per iteration, one name.
    expect(byName.chain).toBe(30);
    expect(target.counts.get("/hello")).toBe(10);
    expect(byName.post).toBe(20);
    const echoed = target.log.filter((e) => e.url === "/echo");
    expect(echoed).toHaveLength(10);
    expect(echoed.every((e) => e.method === "GET" && e.body === "")).toBe(true);
    // A redirect to another origin is not followed: the 302 is the answer.
    expect(byName["off-site"]).toBe(10);
    expect(report.summary.total.failures).toBe(0);
  });

  it("judges a redirect chain once, on its final answer: each hop one request, no hop a passed check", async () => {
    const report = await run({
      name: "judged-once",
      http: { followRedirects: 3 },
      load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
      requests: [
        // Two hops, then /hello, whose body never holds "nowhere": the expectation cannot pass.
        { name: "never", path: "/redirect?to=%2Fredirect%3Fto%3D%252Fhello", expect: { body: "nowhere" } },
        { name: "always", path: "/redirect?to=%2Fredirect%3Fto%3D%252Fhello", expect: { body: "hello" } },
      ],
      thresholds: { "never.checks": ">0%" },
    });
    const never = report.summary.requests.find((r) => r.name === "never");
    expect(never).toMatchObject({ requests: 30, redirects: 20, failures: 10 });
    expect(report.summary.checks).toEqual([
      { name: "never", passes: 0, fails: 10 },
      { name: "always", passes: 10, fails: 0 },
    ]);
    expect(target.counts.get("/hello")).toBe(20);
    expect(report.thresholds.find((t) => t.key === "never.checks")).toMatchObject({ pass: false });
  });

  it("sends absolute urls to their own host (own pool, own cookies); web paths stay on the target", async () => {
    const other = await startTargetServer();
    try {
      const report = await run({
        name: "two-hosts",
        load: { executor: "per-vu-iterations", vus: 3, iterations: 4 },
        requests: [
          { name: "set", path: "/cookie/set?name=sid&value=a{{vu}}&path=/" },
          { name: "elsewhere", url: `${other.url}/hello?vu={{vu}}` },
          { name: "home", path: "/home" },
        ],
      });
      expect(report.summary.total.requests).toBe(36);
      expect(report.summary.total.failures).toBe(0);
      expect(other.counts.get("/hello")).toBe(12);
      expect(other.log.every((e) => e.headers.cookie === undefined)).toBe(true);
      expect(target.counts.get("/home")).toBe(12);
      expect(
        target.log.filter((e) => e.url === "/home").every((e) => /^sid=a\d+$/.test(String(e.headers.cookie))),
      ).toBe(true);
      expect(target.counts.get("/hello")).toBeUndefined();
    } finally {
      await other.close();
    }
    const refused = async (requests: unknown[]) =>
      (
        await sendJson("POST", `${master.url}/api/runs`, {
          scenario: {
            name: "bad-url",
            target: target.url,
            load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
            requests,
          },
        })
      ).body.details;
    expect(await refused([{ url: "http://{{host}}/x" }])).toEqual([
      {
        path: "requests[0].url",
        message: "url must be absolute (http:// or https://), with templates only after the host",
      },
    ]);
    expect(await refused([{ path: "/a", url: "http://h/b" }, { name: "none" }])).toEqual([
      { path: "requests[0].url", message: "give path or url, not both" },
      { path: "requests[1].path", message: "is required (or give url)" },
    ]);
  });

  it("asks for compression, decodes gzip, br and deflate before captures; counts wire bytes", async () => {
    const report = await run({
      name: "compressed",
      http: { compression: true },
      load: { executor: "per-vu-iterations", vus: 2, iterations: 2 },
      requests: ["gzip", "br", "deflate"].flatMap((as) => [
        {
          name: as,
          path: `/compressed?as=${as}`,
          capture: { [`t_${as}`]: "json.token" },
          expect: { body: `z-${as}` },
        },
        { name: `use-${as}`, path: `/echo?token={{t_${as}}}` },
      ]),
    });
    expect(report.summary.total.failures).toBe(0);
    for (const as of ["gzip", "br", "deflate"]) {
      const uses = target.log.filter((e) => e.url.startsWith("/echo") && e.url.includes(`token=z-${as}`));
      expect(uses, as).toHaveLength(4);
    }
    expect(target.log.find((e) => e.url.startsWith("/compressed"))?.headers["accept-encoding"]).toBe(
      "gzip, br, deflate",
    );
    // 4 KB of JSON arrives as far fewer bytes: bytesIn is what crossed the wire.
    const gzip = report.summary.requests.find((r) => r.name === "gzip");
    expect((gzip?.bytesIn ?? 0) / 4).toBeLessThan(1000);
  });
});
