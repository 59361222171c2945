import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningDemo, startDemo } from "@volley/demo";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, spawnCli } from "./support/processes.js";

// The demo shop (`volley demo`, started by `volley start`) is what a new user's first tests hit:
// every file in examples/ runs against it, with `volley run`, and nothing fails.
let demo: RunningDemo;
let dir: string;
// One master and worker for every run (`volley run --master`): each example costs its run only.
let fleet: TestFleet;

beforeAll(async () => {
  [demo, fleet] = await Promise.all([
    startDemo({ port: 0, grpcPort: 0 }),
    startTestFleet({ workers: 1, threads: 2 }),
  ]);
  dir = mkdtempSync(join(tmpdir(), "volley-demo-"));
  // Scripts, feeder files and protos beside the examples, as in the repository.
  cpSync(join(ROOT, "examples"), dir, { recursive: true });
});
afterAll(async () => {
  await fleet?.close();
  await demo?.close();
  rmSync(dir, { recursive: true, force: true });
});

const EXAMPLES = readdirSync(join(ROOT, "examples")).filter((f) => /\.(ya?ml|json)$/.test(f));
/** What the examples read from the shell, as a user would export it. */
const ENV = { SIGNING_KEY: "test-key", OPENAI_API_KEY: "sk-demo", SHOP_API_KEY: "demo" };

describe("every example against the demo shop", () => {
  it("has examples for HTTP, h2c, WebSocket, SSE and gRPC", () => {
    expect(EXAMPLES).toEqual(
      expect.arrayContaining([
        "checkout.yaml",
        "h2c-mesh.yaml",
        "websocket-feed.yaml",
        "llm-stream.yaml",
        "grpc-greeter.yaml",
      ]),
    );
  });

  it.each(EXAMPLES)("%s runs with no failure", async (file) => {
    const example = parse(readFileSync(join(ROOT, "examples", file), "utf8")) as Record<string, unknown>;
    const target = String(example.target).startsWith("grpc") ? demo.grpcTarget : demo.url;
    // Scaled down to a few seconds; the executor changes, the requests, scripts and thresholds
    // stay. Weighted flows get enough iterations for the rarest (1 in 9) to run: 100 of them.
    const load = { executor: "per-vu-iterations", vus: 4, iterations: example.flows ? 25 : 3 };
    const scaled = example.scenarios
      ? {
          ...example,
          target,
          scenarios: Object.fromEntries(
            Object.entries(example.scenarios as Record<string, Record<string, unknown>>).map(([n, s]) => [
              n,
              { ...s, load },
            ]),
          ),
        }
      : { ...example, target, load, ...(example.thinkTime ? { thinkTime: "0ms" } : {}) };
    const path = join(dir, `demo-${file.replace(/\.json$/, ".yaml")}`);
    writeFileSync(path, stringify(scaled));
    const out = join(dir, `${file}.report.json`);
    const cli = spawnCli(["run", path, "--master", fleet.master.url, "--out", out], ENV);
    const output = () => cli.output.join("");
    expect(await cli.exited, output()).toBe(0);
    const report = JSON.parse(readFileSync(out, "utf8")) as RunDetail;
    expect(report.summary.total.requests, output()).toBeGreaterThan(0);
    expect(report.summary.total.failures, output()).toBe(0);
    expect(
      (report.summary.checks ?? []).every((c) => c.fails === 0),
      output(),
    ).toBe(true);
    // Thresholds, where there are some, pass (a run without any has no verdict: null).
    expect(report.passed, output()).not.toBe(false);
  });
});
