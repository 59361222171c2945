import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { startMaster } from "@volley/master";
import {
  feederPath,
  formatFromFileName,
  formatPath,
  MAX_DATA_BYTES,
  multipartFiles,
  parseScenario,
  type RunDetail,
  readScenarioText,
  type Scenario,
  tlsFiles,
  ValidationError,
} from "@volley/protocol";
import { startWorker } from "@volley/worker";
import { ApiClient } from "../api-client.js";
import { intFlag, parseFlags, TOKEN_FLAGS, tokenFlag } from "../args.js";
import { EXIT, UsageError } from "../cli-error.js";
import { LiveView } from "../live-view.js";
import { applyOverrides, flagOfIssue, OVERRIDE_FLAGS, type Overrides } from "../load-overrides.js";
import { protoAttachments } from "../proto-files.js";
import { ensureRedis } from "../redis-launcher.js";
import { compareWithBaseline, fetchShift, findBaseline, parseRegressionLimits } from "../reports/baseline.js";
import { printReport } from "../reports/print-report.js";
import { writeOutputs } from "../reports/run-outputs.js";
import { RunFollower } from "../run-follower.js";
import { scriptSources } from "../script-sources.js";

export const RUN_HELP = `Usage: volley run SCENARIO.(json|yaml) [options]

Runs a scenario headless and prints a summary. Without --master it starts an in-process
master with one local worker (data in ./data, Redis from REDIS_URL or a private one).

Options:
  --master URL   run on this master instead
  --token T      the master's token (default VOLLEY_TOKEN)
  --token-file F read the token from F's first line (not shown in ps)
  --threads N    threads of the local worker (default: cores)
  --out FILE     write the report (the JSON of GET /api/runs/:id)
  --queue        when the master is busy, wait in its queue instead of failing
  --no-typecheck do not type-check TypeScript scripts against @volley/script first
  --strict       exit 1 unless the figures are trusted (no saturation, loss, drops, short run)
  --allow-all-failures  exit 0 even when every request failed (a test of an outage, say)
  --junit FILE   write JUnit XML (a testcase per threshold and per check)
  --summary-md FILE  write a Markdown summary (for $GITHUB_STEP_SUMMARY)
  --html FILE    write the HTML report (self-contained: charts and tables, no network)
  --baseline last|pinned|ID  compare with the newest earlier finished run of this name, the
                 one pinned as its baseline, or that run
  --max-regression "p95=10%,rps=5%"  with --baseline: exit 1 when a metric is worse than this
  -h, --help     this help

Overrides of the scenario, as k6's flags (README, "volley run"):
  --vus N        VUs (with --rate: the most it may keep busy)
  --duration D   how long ("1m", "30s"); with iterations, their longest
  --iterations N iterations shared by the VUs (shared-iterations; --vus default 1)
  --rate R       iterations per second (constant-arrival-rate) for --duration
  --target URL   the target
  -e KEY=VALUE   an env value (repeatable), added to the scenario's env names

Exit codes: 0 passed, 1 a threshold failed, every request failed (unless
--allow-all-failures) or, with --strict, the figures are not trusted; 2 bad input or error.`;

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      master: { type: "string" },
      ...TOKEN_FLAGS,
      threads: { type: "string" },
      out: { type: "string" },
      queue: { type: "boolean" },
      "no-typecheck": { type: "boolean" },
      strict: { type: "boolean" },
      "allow-all-failures": { type: "boolean" },
      junit: { type: "string" },
      "summary-md": { type: "string" },
      html: { type: "string" },
      baseline: { type: "string" },
      "max-regression": { type: "string" },
      ...OVERRIDE_FLAGS,
      help: { type: "boolean", short: "h" },
    },
    1,
  );
  if (values.help) {
    console.log(RUN_HELP);
    return 0;
  }
  const file = positionals[0];
  if (!file) throw new UsageError("name a scenario file: volley run SCENARIO.json");
  const threads = intFlag("threads", values.threads, 1, 1024);
  const limits =
    values["max-regression"] === undefined ? null : parseRegressionLimits(values["max-regression"]);
  if (limits && !values.baseline) throw new UsageError("--max-regression needs --baseline last|ID");
  const { input: scenario, scenario: parsed, overrides } = readScenario(file, values);
  const inputs = runInputs(parsed, file, overrides.env);
  if (overrides.said.length) console.log(`From the command line: ${overrides.said.join("; ")}`);
  // Checked here, before a master or worker starts; the master need not check them again.
  const scripts = await scriptSources(parsed, file, { typecheck: !values["no-typecheck"] });
  Object.assign(inputs.attachments, protoAttachments(parsed, file, scripts));
  const local = values.master ? null : await startLocal(threads);
  try {
    // The in-process master has a token of its own that only this process knows.
    const token = local ? local.token : tokenFlag(values);
    const api = new ApiClient(values.master ?? (local?.url as string), token);
    if (local) await waitForWorker(api);
    const created = await api.request<{
      id: string;
      status: string;
      error?: string;
      details?: Array<{ path: string; message: string }>;
    }>("POST", "/api/runs", {
      scenario,
      ...inputs,
      ...(Object.keys(scripts).length ? { scripts, typecheck: false } : {}),
      ...(values.queue ? { queue: true } : {}),
    });
    if (created.status !== 201) {
      // The error repeats its details in one line: with details, each is said once, on its own line.
      const details = created.body.details?.map((d) => `  ${d.path}: ${d.message}`).join("\n");
      throw new UsageError(
        `the master refused the run:${details ? `\n${details}` : ` ${created.body.error}`}`,
      );
    }
    const runId = created.body.id;
    const where = values.master ? ` on ${values.master}` : "";
    console.log(
      created.body.status === "queued"
        ? `Run ${runId} queued${where}: it starts when the runs before it end`
        : `Run ${runId} started${where}`,
    );
    const run = await follow(api, runId);
    printReport(run);
    await writeOutputs(
      run,
      { out: values.out, junit: values.junit, summaryMd: values["summary-md"], html: values.html },
      () => api.text(`/api/runs/${runId}/report.html?download=1`),
    );
    if (run.status === "failed") return EXIT.usage;
    let regressed = false;
    if (values.baseline) {
      const baseline = await findBaseline(api, run, values.baseline);
      const shift = await fetchShift(api, run, baseline);
      const compared = compareWithBaseline(run, baseline, limits ?? { p95: 10, rps: 5, errorRate: 1 }, shift);
      regressed = compared.some((c) => c.regressed);
      console.log(`\nBaseline ${baseline.id}${regressed ? ": REGRESSION" : ": within the limits"}`);
      for (const c of compared) console.log(`  ${c.regressed ? "✗" : "✓"} ${c.line}`);
    }
    if (run.passed === false || regressed) return EXIT.thresholdsFailed;
    const allFailed = everyRequestFailed(run);
    if (allFailed && !values["allow-all-failures"]) {
      console.log(`\n${allFailed}: exit 1 (--allow-all-failures accepts such a run)`);
      return EXIT.thresholdsFailed;
    }
    if (values.strict && run.trust.verdict !== "trusted") {
      console.log(`\n--strict: the figures are ${run.trust.verdict}, not trusted`);
      return EXIT.thresholdsFailed;
    }
    return EXIT.ok;
  } finally {
    await local?.close();
  }
}

/**
 * What the master needs besides the scenario: the files it names (feeders as text, multipart
 * files as base64, read relative to the scenario file) and the values of its `env` names from
 * this process's environment. The master checks the files' contents (one place, one message).
 */
function runInputs(
  scenario: Scenario,
  scenarioFile: string,
  given: Record<string, string>,
): { files: Record<string, string>; attachments: Record<string, string>; env: Record<string, string> } {
  const files: Record<string, string> = {};
  for (const [name, feeder] of Object.entries(scenario.data)) {
    if (feeder.file)
      files[feeder.file] = readBeside(
        scenarioFile,
        feeder.file,
        `${feederPath(scenario, name)}.file`,
      ).toString("utf8");
  }
  const attachments: Record<string, string> = {};
  for (const [index, request] of scenario.requests.entries()) {
    for (const name of multipartFiles(request)) {
      const where = `${formatPath(scenario.requestPaths[index])}.multipart`;
      attachments[name] = readBeside(scenarioFile, name, where).toString("base64");
    }
  }
  for (const { file, path } of tlsFiles(scenario.http)) {
    attachments[file] = readBeside(scenarioFile, file, formatPath(path)).toString("base64");
  }
  const env: Record<string, string> = {};
  for (const name of scenario.env) {
    const value = given[name] ?? process.env[name];
    if (value === undefined)
      throw new UsageError(`env: ${name} is not set in this shell (or give -e ${name}=VALUE)`);
    env[name] = value;
  }
  return { files, attachments, env };
}

/** A file the scenario names, read relative to the scenario file; `where` names the field. */
function readBeside(scenarioFile: string, name: string, where: string): Buffer {
  const path = resolve(dirname(resolve(scenarioFile)), name);
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new UsageError(`${where}: cannot read ${name}: ${errorCode(error)}`);
  }
  if (size > MAX_DATA_BYTES) {
    throw new UsageError(`${where}: ${name} is larger than ${MAX_DATA_BYTES / 1024 / 1024} MiB`);
  }
  return readFileSync(path);
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * The scenario as written with the flags' overrides (sent to the master) and as validated (read
 * here); a field an override set and the scenario refuses is named by its flag.
 */
function readScenario(
  file: string,
  flags: Parameters<typeof applyOverrides>[1],
): { input: unknown; scenario: Scenario; overrides: Overrides } {
  let text: string;
  try {
    text = readFileSync(resolve(file), "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${errorCode(error)}`);
  }
  let overrides: Overrides | undefined;
  try {
    overrides = applyOverrides(readScenarioText(text, formatFromFileName(file)), flags);
    return { input: overrides.input, scenario: parseScenario(overrides.input), overrides };
  } catch (error) {
    if (error instanceof ValidationError) {
      const lines = error.issues.map((i) => {
        const flag = overrides && flagOfIssue(overrides.flags, i.path);
        return flag ? `  ${flag}: ${i.message} (${i.path})` : `  ${i.path}: ${i.message}`;
      });
      throw new UsageError(`${file} is not a valid scenario:\n${lines.join("\n")}`);
    }
    throw error;
  }
}

/** An in-process master and worker, for a run without --master. */
async function startLocal(threads: number | undefined) {
  const redis = await ensureRedis({ dataDir: "./data" });
  // Any local process could otherwise stop the run (a CI job then passes on a cut-short run) or
  // queue one of its own: the API and the worker socket answer only to this token.
  const token = randomBytes(32).toString("base64url");
  const master = await startMaster({
    port: 0,
    token,
    redisUrl: redis.url,
    logLevel: "warn",
    webRoot: null,
    // Time for the engine threads to boot before the planned start: they share the cores with
    // this master starting up, and 500 ms was measured short (a thread began 374 ms late on one
    // core, and every rate of the run was counted over those idle milliseconds).
    startDelayMs: 1500,
  });
  const worker = startWorker({
    masterUrl: master.url,
    threads,
    name: "local",
    token,
    redisUrl: redis.url,
    local: true,
    logLevel: "warn",
  });
  return {
    url: master.url,
    token,
    close: async () => {
      await worker.shutdown(5000);
      await master.close();
      await redis.stop();
    },
  };
}

async function waitForWorker(api: ApiClient): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const { body } = await api.request<Array<{ state: string }>>("GET", "/api/workers");
    if (body.some((w) => w.state === "ready")) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the local worker did not connect within 10 s");
}

/** Prints progress until the run ends; Ctrl-C stops it gracefully (twice: leave at once). */
async function follow(api: ApiClient, runId: string): Promise<RunDetail> {
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write("\nStopping the run (Ctrl-C again to leave without the report)...\n");
      void api.request("POST", `/api/runs/${runId}/stop`);
    } else {
      process.exit(EXIT.interrupted);
    }
  };
  process.on("SIGINT", onSignal);
  const view = new LiveView(process.stdout);
  try {
    const run = await new RunFollower(api, runId, (current, saturated) =>
      view.update(current, saturated),
    ).follow();
    view.finish();
    return run;
  } finally {
    process.off("SIGINT", onSignal);
  }
}

/**
 * Why a run in which nothing succeeded cannot pass, whatever its thresholds say (most often the
 * target was not there), or null when some request got an answer it accepted.
 */
export function everyRequestFailed(run: RunDetail): string | null {
  const { requests, failures } = run.summary.total;
  if (requests === 0 || failures < requests) return null;
  const [top] = [...run.summary.errors].sort((a, b) => b.count - a.count);
  const cause = top ? `, most often ${top.kind}: ${top.message}` : "";
  return `Every request failed (${requests.toLocaleString("en-US")} of ${requests.toLocaleString("en-US")}${cause})`;
}
