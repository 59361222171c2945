import { describe, expect, it } from "vitest";
import { toYaml } from "../imported.js";
import { convertK6 } from "./k6-convert.js";
import { metricName } from "./k6-script.js";

const convert = (text: string) => convertK6({ name: "t.js", text }, "t", { "index.ts": "// compat" });
const script = (text: string) => convert(text).files["t.ts"];

describe("convertK6: the script", () => {
  it("awaits every request, sleep and group, and makes each caller async to a fixed point", () => {
    const out = script(`import http from "k6/http";
import { sleep, group } from "k6";
const get = (p) => http.get("http://a.test" + p);
function twice(p) { get(p); return get(p).status; }
function pure(x) { return x * 2; }
export default function () {
  group("g", () => { twice("/x"); });
  [1, 2].forEach(function (i) { get("/" + pure(i)); });
  sleep(1);
}`);
    expect(out).toContain('const get = async (p) => (await http.get("http://a.test" + p));');
    expect(out).toContain("async function twice(p) { (await get(p)); return (await get(p)).status; }");
    expect(out).toContain("function pure(x) { return x * 2; }");
    expect(out).toContain('(await group("g", async () => { (await twice("/x")); }));');
    expect(out).toContain('(await k6Each([1, 2], async function (i) { (await get("/" + pure(i))); }));');
    expect(out).toContain("(await sleep(1));");
    expect(out).toContain("async function __k6Default() {");
    expect(out).toMatch(/export default k6Iteration\(__k6Default\);\n$/);
    expect(out).toMatch(/^\/\/ @ts-nocheck: converted from k6/);
    expect(out).toContain('import { group, http, k6Each, k6Iteration, sleep } from "./k6-compat/index.js";');
  });

  it("reads __VU, __ITER and __ENV from the VU, and open() files as bundled text", () => {
    const converted = convert(`import http from "k6/http";
const users = JSON.parse(open("users.json"));
export default function () { http.get(\`http://a.test/\${__VU}/\${__ITER}?k=\${__ENV.API_KEY}\`); }`);
    const out = converted.files["t.ts"];
    expect(out).toContain('import __k6Open0 from "./users.json" with { type: "text" };');
    expect(out).toContain("const users = JSON.parse(__k6Open0);");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the converted script's own template literal
    expect(out).toContain("${__VU()}/${__ITER()}?k=${__ENV.API_KEY}");
    expect(converted.copies).toEqual(["./users.json"]);
    expect(converted.scenario.env).toEqual(["API_KEY"]);
  });

  it("says where a script does not parse", () => {
    expect(() => convert("export default function () {\n  let = ;\n}")).toThrow(
      /^t\.js:2: not a JavaScript module/,
    );
    expect(() => convert('import http from "k6/http";\nhttp.get("x");')).toThrow(
      "t.js: has no default export",
    );
  });

  it("makes a custom metric's name Volley's", () => {
    expect(metricName("Orders-Placed")).toBe("orders_placed");
    expect(metricName("2xx count")).toBe("m_2xx_count");
  });
});

describe("convertK6: the options", () => {
  it("maps every executor, per-second rates and k6's thresholds", () => {
    const converted = convert(`export const options = {
  scenarios: {
    a: { executor: "constant-vus", vus: 3, duration: "30s", gracefulStop: "5s" },
    b: { executor: "ramping-vus", startVUs: 0, stages: [{ duration: "1m", target: 10 }], gracefulRampDown: "0s" },
    c: { executor: "shared-iterations", vus: 5, iterations: 2 },
    d: { executor: "ramping-arrival-rate", startRate: 60, timeUnit: "1m", stages: [{ target: 600, duration: "1m" }], preAllocatedVUs: 5, maxVUs: 50 },
    e: { executor: "externally-controlled", vus: 1, duration: "1m" },
  },
  thresholds: {
    http_req_failed: ["rate<0.01"],
    "http_req_duration{name:login}": ["p(99)<800", "avg<300"],
    "http_req_duration{kind:html}": ["avg<10"],
    my_rate: ["rate>0.9", { threshold: "rate>0.5", abortOnFail: true, delayAbortEval: "10s" }],
    checks: [{ threshold: "rate>0.95", abortOnFail: true }],
  },
  insecureSkipTLSVerify: true,
  userAgent: "x",
};
export default function () {}`);
    expect(converted.scenario.scenarios).toEqual({
      a: {
        load: { executor: "constant-vus", vus: 3, duration: "30s", gracefulStop: "5s" },
        script: "./t.ts",
      },
      b: {
        load: { executor: "ramping-vus", startVus: 0, stages: [{ duration: "1m", target: 10 }] },
        script: "./t.ts",
      },
      c: { load: { executor: "shared-iterations", vus: 2, iterations: 2 }, script: "./t.ts" },
      d: {
        load: {
          executor: "ramping-arrival-rate",
          startRate: 1,
          stages: [{ duration: "1m", target: 10 }],
          maxVus: 50,
        },
        script: "./t.ts",
      },
      e: { load: { executor: "per-vu-iterations", vus: 1, iterations: 1 }, script: "./t.ts" },
    });
    expect(converted.scenario.thresholds).toEqual({
      errorRate: "<0.01",
      "login.p99": "<800ms",
      "login.mean": "<300ms",
      "metrics.my_rate.rate": ">0.9",
      checks: { threshold: ">0.95", abortOnFail: true },
    });
    expect(converted.scenario.http).toEqual({ insecureTls: true });
    expect(converted.notes).toEqual([
      "options.scenarios.b.gracefulRampDown is not converted",
      "options.scenarios.e: the externally-controlled executor has no Volley equivalent: it runs one VU once",
      'threshold http_req_duration{kind:html}: ["avg<10"] has no Volley equivalent: left out',
      'threshold my_rate: "rate>0.5" left out: Volley keeps one threshold per figure (metrics.my_rate.rate)',
      "options.userAgent is not converted",
      "the script names no absolute URL: the target is http://127.0.0.1:8080, set yours",
    ]);
    expect(() =>
      toYaml({ scenario: converted.scenario, notes: [] }, "t.js", "volley convert k6"),
    ).not.toThrow();
  });

  it("turns k6's shortcuts into a load: stages, iterations, duration, nothing", () => {
    const load = (options: string) =>
      convert(`export const options = ${options};\nexport default function () {}`).scenario.load;
    expect(load('{ vus: 2, stages: [{ duration: "10s", target: 5 }] }')).toEqual({
      executor: "ramping-vus",
      startVus: 2,
      stages: [{ duration: "10s", target: 5 }],
    });
    expect(load('{ vus: 4, iterations: 10, duration: "1m" }')).toEqual({
      executor: "shared-iterations",
      vus: 4,
      iterations: 10,
      maxDuration: "1m",
    });
    expect(load('{ vus: __ENV.VUS || 7, duration: "30s" }')).toEqual({
      executor: "constant-vus",
      vus: 7,
      duration: "30s",
    });
    expect(load("{}")).toEqual({ executor: "per-vu-iterations", vus: 1, iterations: 1 });
  });
});
