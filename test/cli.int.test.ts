import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliSandbox, cliSandbox } from "./support/cli-sandbox.js";
import { CLI, isolatedSetup, ROOT, spawnCli, waitFor } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";

let target: TargetServer;
let cli: CliSandbox;
beforeAll(async () => {
  target = await startTargetServer();
  cli = cliSandbox("volley-cli-");
});
afterAll(() => target.close());
const writeScenario = (name: string, content: unknown, yaml = false) =>
  cli.writeScenario(name, content, yaml);
const volley = (args: string[]) => cli.volley(args);

describe("volley command", () => {
  it("prints help, and exits 2 on an unknown command or a bad flag", async () => {
    expect(await volley(["--help"])).toMatchObject({ code: 0, output: expect.stringContaining("Commands:") });
    for (const sub of ["master", "worker", "run", "start"]) {
      expect(await volley([sub, "--help"])).toMatchObject({
        code: 0,
        output: expect.stringContaining(`Usage: volley ${sub}`),
      });
    }
    expect(await volley(["launch"])).toMatchObject({
      code: 2,
      output: expect.stringContaining('unknown command "launch"'),
    });
    expect(await volley(["master", "--prot", "1"])).toMatchObject({
      code: 2,
      output: expect.stringContaining("--prot"),
    });
    expect(await volley(["master", "--port", "http"])).toMatchObject({
      code: 2,
      output: expect.stringContaining("--port: expected a whole number"),
    });
    expect(await volley(["worker"])).toMatchObject({
      code: 2,
      output: expect.stringContaining("--master URL is required"),
    });
    expect(await volley(["worker", "--master", "ftp://x"])).toMatchObject({
      code: 2,
      output: expect.stringContaining("http://"),
    });
    expect(await volley(["master", "--port", "0", "--webhook", "ftp://hooks.example/x"])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--webhook: "ftp://hooks.example/x" is not an http:// or https:// URL'),
    });
    expect(await volley(["master", "--port", "0", "--otlp", "collector:4318"])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--otlp: "collector:4318" is not an http:// or https:// URL'),
    });
    expect(await volley(["master", "--host", "0.0.0.0"])).toMatchObject({
      code: 2,
      output: expect.stringContaining("without a token"),
    });
    // An empty host would listen on every interface; a stray space is a typo: plain messages, no stack.
    for (const host of ["", "  ", "127.0.0.1 ", "no-such-host.invalid"]) {
      const result = await volley(["master", "--host", host, "--port", "0", "--token", "cli-test-token-1"]);
      expect(result.code, host).toBe(2);
      expect(result.output, host).toMatch(/is not an address to listen on|is not a known address/);
      expect(result.output, host).not.toMatch(/\n\s+at /);
    }
  });

  it("is a real command once linked onto PATH: no pnpm banner, and Ctrl-C of `volley start` exits 0", async () => {
    const bin = mkdtempSync(join(tmpdir(), "volley-bin-"));
    const linked = spawnSync(process.execPath, [join(ROOT, "scripts/link-cli.mjs"), bin], {
      encoding: "utf8",
    });
    expect(linked.status, linked.stderr).toBe(0);
    expect(linked.stdout).toContain(`linked as ${join(bin, "volley")}`);
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, VOLLEY_LOG_LEVEL: "warn" };
    const help = spawnSync("volley", ["--help"], { cwd: cli.dir, env, encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout.startsWith("Usage: volley <command>")).toBe(true);
    // Linking again is harmless.
    expect(spawnSync(process.execPath, [join(ROOT, "scripts/link-cli.mjs"), bin]).status).toBe(0);

    const setup = isolatedSetup();
    const start = spawn("volley", ["start", "--port", "0"], {
      cwd: mkdtempSync(join(tmpdir(), "volley-start-")),
      env: { ...env, DATABASE_URL: setup.databaseUrl, VOLLEY_QUEUE_PREFIX: setup.queuePrefix },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    start.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    start.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    const exited = new Promise<number | string>((done) =>
      start.on("exit", (code, signal) => done(code ?? signal ?? -1)),
    );
    try {
      await waitFor(() => output.includes("Volley is running"), { what: "volley start", timeoutMs: 30_000 });
      // A terminal's Ctrl-C reaches the whole group: the same signal twice must not cut the stop short.
      start.kill("SIGINT");
      start.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(output).toContain("Stopping...");
    } finally {
      start.kill("SIGKILL");
    }
  });

  it("run: a bad threshold exits 2 with one plain line per field, no stack", async () => {
    const file = writeScenario("bad-threshold.json", {
      name: "t",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
      requests: [{ path: "/hello" }],
      thresholds: { p95: "<<<", bogus: "<1" },
    });
    const result = await volley(["run", file]);
    expect(result.code).toBe(2);
    expect(result.output).toContain("thresholds.p95");
    expect(result.output).toContain("thresholds.bogus");
    expect(result.output).not.toMatch(/\n\s+at /);
  });

  it("run: a bad scenario exits 2 and names each field", async () => {
    const file = writeScenario(
      "bad.yaml",
      "name: bad\ntarget: http://127.0.0.1:1\nload:\n  executor: constant-vus\n  vus: 0\nrequests: []\n",
      true,
    );
    const result = await volley(["run", file]);
    expect(result.code).toBe(2);
    expect(result.output).toContain("load.vus");
    expect(result.output).toContain("load.duration");
    expect(result.output).toContain("requests");
    expect(await volley(["run", join(cli.dir, "missing.json")])).toMatchObject({
      code: 2,
      output: expect.stringContaining("ENOENT"),
    });
    const broken = writeScenario("broken.json", "{ nope", true);
    expect(await volley(["run", broken])).toMatchObject({
      code: 2,
      output: expect.stringContaining("not valid JSON"),
    });
  });

  it("run: passes (0) and writes the report the API serves", async () => {
    target.reset();
    const file = writeScenario("pass.json", {
      name: "cli-pass",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 3, iterations: 10 },
      requests: [{ name: "hello", path: "/hello", expect: { status: 200 } }],
      thresholds: { p95: "<2s", checks: "==100%" },
    });
    const out = join(cli.dir, "report.json");
    const junit = join(cli.dir, "junit.xml");
    const markdown = join(cli.dir, "summary.md");
    const html = join(cli.dir, "report.html");
    const args = [
      ...["run", file, "--threads", "1", "--out", out, "--junit", junit, "--summary-md", markdown],
      ...["--html", html],
    ];
    const result = await volley(args);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/GET hello\s+30\s+0/);
    expect(result.output).toContain("Checks\n  ✓ hello  30 passed, 0 failed  (100.00 %)");
    expect(result.output).toContain("Thresholds passed");
    expect(result.output).toMatch(/✓ p95 <2s {2}\(actual \d+\.\d+ ms\)/);
    const report = JSON.parse(readFileSync(out, "utf8"));
    expect(report).toMatchObject({ name: "cli-pass", status: "finished", passed: true });
    expect(report.summary.total.requests).toBe(30);
    expect(target.total()).toBe(30);
    // 30 requests in well under 10 s: the figures are degraded (too short for p99), and say so.
    expect(report.trust.verdict).toBe("degraded");
    expect(report.trust.reasons.map((r: { kind: string }) => r.kind)).toEqual(["short-run"]);
    expect(result.output).toContain("Figures: degraded");
    const xml = readFileSync(junit, "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<testcase classname="cli-pass.thresholds" name="p95 &lt;2s"></testcase>');
    expect(readFileSync(markdown, "utf8")).toContain("figures **degraded**");
    // The HTML report as the master renders it: self-contained (no script, no link), with its charts.
    const page = readFileSync(html, "utf8");
    expect(page).toContain("<h1>cli-pass</h1>");
    expect(page).toContain("<svg");
    expect(page).not.toMatch(/<script|<link/);
    expect(result.output).toContain(`HTML report written to ${html}`);
    // --strict: anything but trusted fails the build.
    const strict = await volley(["run", file, "--threads", "1", "--strict"]);
    expect(strict.code).toBe(1);
    expect(strict.output).toContain("--strict: the figures are degraded, not trusted");
  });

  it("run: feeder files are read beside the scenario, env values from the shell", async () => {
    target.reset();
    const folder = join(cli.dir, "with-data");
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, "users.csv"),
      `\uFEFFuser\n${Array.from({ length: 30 }, (_, i) => `u${i}`).join("\n")}\n`,
    );
    const file = join(folder, "data.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "cli-data",
        target: target.url,
        env: ["CLI_TEST_TOKEN"],
        data: { users: { file: "users.csv", mode: "unique" } },
        load: { executor: "constant-vus", vus: 3, duration: "10s" },
        requests: [{ path: "/u/{{data.users.user}}", headers: { authorization: "{{env.CLI_TEST_TOKEN}}" } }],
      }),
    );
    const setup = isolatedSetup();
    const env = { DATABASE_URL: setup.databaseUrl, VOLLEY_QUEUE_PREFIX: setup.queuePrefix };
    // The scenario's folder is not the working directory: the file is found beside the scenario.
    const missing = spawnCli(["run", file, "--threads", "1"], env, ROOT);
    expect(await missing.exited).toBe(2);
    expect(missing.output.join("")).toContain("env: CLI_TEST_TOKEN is not set");
    const running = spawnCli(["run", file, "--threads", "1"], { ...env, CLI_TEST_TOKEN: "tok-1" }, ROOT);
    expect(await running.exited, running.output.join("")).toBe(0);
    const paths = target.log.map((e) => e.url);
    expect(paths.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `/u/u${i}`).sort());
    expect(target.log.every((e) => e.headers.authorization === "tok-1")).toBe(true);

    writeFileSync(join(folder, "users.csv"), 'user\n"broken\n');
    const bad = spawnCli(["run", file], { ...env, CLI_TEST_TOKEN: "tok-1" }, ROOT);
    expect(await bad.exited).toBe(2);
    expect(bad.output.join("")).toContain("data.users.file: users.csv: line 2: a quoted field is not closed");
    // Said once, on its own line (not again inside a one-line summary of the same problems).
    expect(bad.output.join("").split("a quoted field is not closed")).toHaveLength(2);
  });

  it("run: k6's flags override the load, the target and env values; a bad one exits 2 naming the flag", async () => {
    target.reset();
    // Written for a 10-minute ramp against a host that does not exist; run as 3 VUs sharing 9 iterations.
    const file = writeScenario("k6-flags.json", {
      name: "cli-k6-flags",
      target: "http://no-such-host.invalid",
      load: { executor: "ramping-vus", stages: [{ duration: "10m", target: 100 }] },
      requests: [{ path: "/flags", headers: { authorization: "{{env.K6_FLAG_TOKEN}}" } }],
    });
    const result = await volley([
      ...["run", file, "--threads", "1", "--vus", "3", "--iterations", "9"],
      ...["--target", target.url, "-e", "K6_FLAG_TOKEN=tok-e"],
    ]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(
      'From the command line: load {"executor":"shared-iterations","vus":3,"iterations":9}',
    );
    expect(target.counts.get("/flags")).toBe(9);
    expect(target.log.every((e) => e.headers.authorization === "tok-e")).toBe(true);
    const bad = await volley(["run", file, "--vus", "3", "--duration", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/--duration: .* \(load\.duration\)/);
    expect(bad.output).not.toMatch(/\n\s+at /);
    expect(await volley(["run", file, "--vus", "3"])).toMatchObject({
      code: 2,
      output: expect.stringContaining("--duration: give --vus and --duration together"),
    });
  });

  it("run: a failed threshold exits 1", async () => {
    const file = writeScenario("fail.json", {
      name: "cli-fail",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
      requests: [{ path: "/status/500" }],
      thresholds: { errorRate: "<1%" },
    });
    const result = await volley(["run", file]);
    expect(result.code, result.output).toBe(1);
    expect(result.output).toContain("Thresholds FAILED");
    expect(result.output).toContain("3x status");
  });

  it("run: every request failed exits 1 and says why, unless --allow-all-failures", async () => {
    const file = writeScenario("all-failed.json", {
      name: "cli-all-failed",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
      requests: [{ path: "/status/503" }],
    });
    const failed = await volley(["run", file, "--threads", "1"]);
    expect(failed.code, failed.output).toBe(1);
    expect(failed.output).toContain("Every request failed (3 of 3, most often status: ");
    expect(failed.output).toContain("--allow-all-failures");
    const allowed = await volley(["run", file, "--threads", "1", "--allow-all-failures"]);
    expect(allowed.code, allowed.output).toBe(0);
    // One request answered as expected is enough for the run to pass.
    const mixed = writeScenario("mixed.json", {
      name: "cli-mixed",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 3 },
      requests: [{ path: "/status/503" }, { path: "/hello" }],
    });
    expect((await volley(["run", mixed, "--threads", "1"])).code).toBe(0);
  });

  it("logs short lines for a person on a terminal (a pty), JSON lines elsewhere or with --log-format json", async () => {
    const setup = isolatedSetup();
    const inTerminal = async (flags: string) => {
      // `script` runs the master on a pseudo-terminal, as a person's shell would.
      const command = `${process.execPath} ${CLI} ${flags} master --port 0`;
      const child = spawn("script", ["-qfec", command, "/dev/null"], {
        env: {
          ...process.env,
          DATABASE_URL: setup.databaseUrl,
          VOLLEY_QUEUE_PREFIX: setup.queuePrefix,
          VOLLEY_LOG_LEVEL: "info",
          VOLLEY_LOG_FORMAT: "",
        },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (d: Buffer) => {
        output += d.toString();
      });
      try {
        await waitFor(() => output.includes("database ready"), {
          what: "the master's first log line",
          timeoutMs: 20_000,
        });
      } finally {
        child.kill("SIGTERM");
        await new Promise((resolve) => child.once("exit", resolve));
      }
      return output;
    };
    const human = await inTerminal("");
    expect(human).toMatch(/\d\d:\d\d:\d\d {2}INFO {3}master {2}database ready {2}database=sqlite/);
    expect(human).not.toContain('{"level"');
    expect(await inTerminal("--log-format json")).toContain('"msg":"database ready"');
    expect(await volley(["--log-format", "yaml", "master"])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--log-format: expected json or human, got "yaml"'),
    });
  });
});
