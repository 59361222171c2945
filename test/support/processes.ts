import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isTerminalRunStatus } from "@volley/protocol";

export const ROOT = resolve(import.meta.dirname, "../..");
export const CLI = join(ROOT, "apps/cli/dist/bin.js");

const running = new Set<ChildProcess>();

/** Kills every process a test started (SIGKILL); call in afterAll/afterEach. */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once("exit", () => done());
          child.kill("SIGKILL");
        }),
    ),
  );
  running.clear();
}

export interface CliProcess {
  child: ChildProcess;
  output: string[];
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  signal(signal: NodeJS.Signals): void;
}

/** Runs the `volley` CLI as a real process. */
export function spawnCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd = ROOT,
  /** Wraps the command, e.g. `["taskset", "-c", "0"]`. */
  prefix: string[] = [],
): CliProcess {
  const [command, ...commandArgs] = [...prefix, process.execPath, CLI, ...args];
  const child = spawn(command, commandArgs, {
    cwd,
    env: { ...process.env, VOLLEY_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  const output: string[] = [];
  child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<number | string>((done) => {
    child.on("exit", (code, signal) => {
      running.delete(child);
      done(code ?? signal ?? -1);
    });
  });
  return { child, output, exited, signal: (s) => child.kill(s) };
}

export interface MasterProcess extends CliProcess {
  url: string;
}

export interface MasterSetup {
  databaseUrl: string;
  queuePrefix: string;
  redisUrl?: string;
}

/** A fresh SQLite file and queue prefix, so tests never see each other's runs or batches. */
export function isolatedSetup(): MasterSetup {
  const dir = mkdtempSync(join(tmpdir(), "volley-test-"));
  return {
    databaseUrl: `file:${join(dir, "volley.db")}`,
    queuePrefix: `vt-${randomBytes(4).toString("hex")}`,
  };
}

/** Starts `volley master` and waits until it prints where it listens. */
export async function startMasterProcess(
  setup: MasterSetup,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<MasterProcess> {
  const cli = spawnCli(["master", "--port", "0", ...args], {
    DATABASE_URL: setup.databaseUrl,
    VOLLEY_QUEUE_PREFIX: setup.queuePrefix,
    REDIS_URL: setup.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    ...env,
  });
  const url = await waitFor(() => /Volley master on (\S+)/.exec(cli.output.join(""))?.[1], {
    what: `the master to start (output: ${cli.output.join("")})`,
    timeoutMs: 20_000,
    failIf: () => cli.child.exitCode !== null,
  });
  return { ...cli, url };
}

export interface WorkerProcess extends CliProcess {
  name: string;
}

/** Starts `volley worker` and waits until the master lists it as ready. */
export async function startWorkerProcess(
  masterUrl: string,
  options: {
    name?: string;
    threads?: number;
    token?: string;
    env?: Record<string, string>;
    prefix?: string[];
    /** Extra flags (`--label pool=eu`). */
    args?: string[];
  } = {},
): Promise<WorkerProcess> {
  const name = options.name ?? `w-${randomBytes(3).toString("hex")}`;
  const args = ["worker", "--master", masterUrl, "--name", name, "--threads", String(options.threads ?? 1)];
  if (options.token) args.push("--token", options.token);
  args.push(...(options.args ?? []));
  const cli = spawnCli(args, options.env, ROOT, options.prefix);
  await waitFor(
    async () => {
      const workers = await getJson<Array<{ name: string; state: string }>>(
        `${masterUrl}/api/workers`,
        options.token,
      );
      return workers.some((w) => w.name === name && w.state === "ready") || undefined;
    },
    { what: `worker ${name} to be ready`, timeoutMs: 20_000, failIf: () => cli.child.exitCode !== null },
  );
  return { ...cli, name };
}

/** Polls until `check` returns something other than undefined, null or false; throws after the timeout. */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: { what: string; timeoutMs?: number; intervalMs?: number; failIf?: () => boolean },
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value as T;
    } catch (error) {
      lastError = error;
    }
    if (options.failIf?.()) break;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
  throw new Error(
    `timed out waiting for ${options.what}${lastError ? ` (last error: ${(lastError as Error).message})` : ""}`,
  );
}

export async function getJson<T>(url: string, token?: string): Promise<T> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export async function sendJson(
  method: string,
  url: string,
  body?: unknown,
  token?: string,
): Promise<{
  status: number;
  body: Record<string, unknown> & { details?: Array<{ path: string; message: string }> };
}> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** Waits for a run to reach a final status and returns its report. */
export async function waitForRunEnd<T = import("@volley/protocol").RunDetail>(
  masterUrl: string,
  runId: string,
  timeoutMs = 60_000,
  token?: string,
): Promise<T> {
  return waitFor(
    async () => {
      const run = await getJson<{ status: string }>(`${masterUrl}/api/runs/${runId}`, token);
      return isTerminalRunStatus(run.status) ? (run as T) : undefined;
    },
    { what: `run ${runId} to end`, timeoutMs, intervalMs: 250 },
  );
}

/**
 * Waits until the master has merged the run's first `seconds` seconds (its live point is that far
 * on): the positive sign that load flows and workers report, before a test cuts something.
 */
export async function waitForRunSeconds(
  masterUrl: string,
  runId: string,
  seconds: number,
  token?: string,
): Promise<import("@volley/protocol").RunDetail> {
  let ended = false;
  return waitFor(
    async () => {
      const run = await getJson<import("@volley/protocol").RunDetail>(
        `${masterUrl}/api/runs/${runId}`,
        token,
      );
      ended = isTerminalRunStatus(run.status);
      if (ended) throw new Error(`run ${runId} ended (${run.status}) first`);
      return (run.now?.t ?? -1) + 1 >= seconds ? run : undefined;
    },
    {
      what: `run ${runId} to have ${seconds} s merged`,
      timeoutMs: 30_000,
      intervalMs: 100,
      failIf: () => ended,
    },
  );
}

/**
 * Keeps a condition (an outage, a stall, a pace of pushes) for a time. Never a wait for something
 * to happen or not to: those are waitFor on a positive sign.
 */
export function hold(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
