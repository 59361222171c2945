import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isolatedSetup, ROOT } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

// The composite action in .github/actions/volley-run: its YAML checked, and its run step's
// script executed with bash as a runner would (no GitHub runner here).
const ACTION = join(ROOT, ".github/actions/volley-run/action.yml");
const text = readFileSync(ACTION, "utf8");
const action = parse(text) as {
  inputs: Record<string, { required?: boolean; default?: string }>;
  runs: {
    using: string;
    steps: Array<{
      name: string;
      id?: string;
      run?: string;
      shell?: string;
      uses?: string;
      env?: Record<string, string>;
    }>;
  };
};

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());

describe("the volley-run GitHub Action", () => {
  it("is a composite action whose run steps name a shell and whose inputs are all used", () => {
    expect(action.runs.using).toBe("composite");
    for (const step of action.runs.steps) if (step.run) expect(step.shell, step.name).toBe("bash");
    const used = new Set([...text.matchAll(/\$\{\{\s*inputs\.([a-z-]+)\s*\}\}/g)].map((m) => m[1]));
    expect([...used].sort()).toEqual(Object.keys(action.inputs).sort());
    expect(action.inputs.scenario.required).toBe(true);
  });

  it("its run step runs a scenario, writes the reports, the output and the step summary", async () => {
    const work = mkdtempSync(join(tmpdir(), "volley-action-"));
    writeFileSync(
      join(work, "load.json"),
      JSON.stringify({
        name: "action-run",
        target: target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
        requests: [{ name: "hello", path: "/hello" }],
        thresholds: { p95: "<5s" },
      }),
    );
    const step = action.runs.steps.find((s) => s.id === "run");
    const setup = isolatedSetup();
    const output = join(work, "output.txt");
    const summary = join(work, "summary.md");
    // Asynchronous: the target server answers from this very process.
    const bash = (env: NodeJS.ProcessEnv) =>
      new Promise<{ status: number | null; out: string }>((resolve) => {
        const child = spawn("bash", ["-e", "-c", step?.run as string], { cwd: work, env });
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d;
        });
        child.stderr.on("data", (d: Buffer) => {
          out += d;
        });
        child.on("exit", (status) => resolve({ status, out }));
      });
    const result = await bash({
      ...process.env,
      INPUT_SCENARIO: "load.json",
      INPUT_MASTER: "",
      INPUT_STRICT: "false",
      INPUT_BASELINE: "",
      INPUT_MAX_REGRESSION: "",
      VOLLEY_PATH: ROOT,
      VOLLEY_LOG_LEVEL: "warn",
      DATABASE_URL: setup.databaseUrl,
      VOLLEY_QUEUE_PREFIX: setup.queuePrefix,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(result.status, result.out).toBe(0);
    expect(readFileSync(output, "utf8")).toContain("report=volley-reports/report.json");
    for (const file of ["report.json", "junit.xml", "summary.md"]) {
      expect(existsSync(join(work, "volley-reports", file)), file).toBe(true);
    }
    expect(readFileSync(summary, "utf8")).toContain("## Volley: action-run");
    expect(target.total()).toBe(10);
    // strict: a 10-request run is too short to be trusted, so the step fails.
    const strict = await bash({
      ...process.env,
      INPUT_SCENARIO: "load.json",
      INPUT_STRICT: "true",
      VOLLEY_PATH: ROOT,
      VOLLEY_LOG_LEVEL: "warn",
      DATABASE_URL: setup.databaseUrl,
      VOLLEY_QUEUE_PREFIX: setup.queuePrefix,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(strict.status).toBe(1);
  }, 60_000);
});
