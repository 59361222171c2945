import { randomUUID } from "node:crypto";
import { availableParallelism, hostname } from "node:os";
import { ConfigError, type LogFormat, logFormatOf, parseLabel, workerLabelsSchema } from "@volley/protocol";
import type { MasterTls } from "./connection/master-connection.js";

export interface WorkerOptions {
  /** The master's base URL. */
  masterUrl: string;
  /** @defaultValue VOLLEY_TOKEN */
  token?: string;
  /** Engine threads. @defaultValue the machine's cores */
  threads?: number;
  /** @defaultValue "<hostname>-<pid>" */
  name?: string;
  /** Where stats batches go. @defaultValue REDIS_URL, else what the master says, else redis://127.0.0.1:6379 */
  redisUrl?: string;
  /** Started by a master on its own machine. @defaultValue false */
  local?: boolean;
  /** Batches kept while Redis is away. @defaultValue 600 (10 minutes) */
  maxBufferedBatches?: number;
  /** @defaultValue "info" */
  logLevel?: string;
  /** JSON lines, or short lines for a person. @defaultValue human on a terminal, else json (VOLLEY_LOG_FORMAT) */
  logFormat?: LogFormat;
  /** An engine thread silent this long while its slice runs is blocked, and stopped. @defaultValue 10000 */
  threadStallMs?: number;
  /** An `https://` master's CA (PEM) or pinned certificate fingerprint. @defaultValue the system's CAs */
  masterTls?: MasterTls;
  /** Labels scenarios pick workers by (`--label pool=eu`). @defaultValue VOLLEY_LABELS ("pool=eu,tier=big"), else none */
  labels?: Record<string, string>;
}

export interface ResolvedWorkerOptions
  extends Required<Omit<WorkerOptions, "token" | "redisUrl" | "masterTls">> {
  token: string | undefined;
  masterTls: MasterTls | undefined;
  redisUrl: string | undefined;
  workerId: string;
  host: string;
  cores: number;
}

export function resolveWorkerOptions(options: WorkerOptions, env = process.env): ResolvedWorkerOptions {
  let master: URL;
  try {
    master = new URL(options.masterUrl);
  } catch {
    throw new ConfigError(`--master: "${options.masterUrl}" is not a URL such as http://127.0.0.1:8089`);
  }
  if (master.protocol !== "http:" && master.protocol !== "https:") {
    throw new ConfigError(`--master: "${options.masterUrl}" must start with http:// or https://`);
  }
  const tls = options.masterTls;
  if ((tls?.ca !== undefined || tls?.fingerprint !== undefined) && master.protocol !== "https:") {
    throw new ConfigError("--master-ca and --master-fingerprint need an https:// --master");
  }
  if (tls?.fingerprint !== undefined && !/^([0-9a-f]{2}:?){31}[0-9a-f]{2}$/i.test(tls.fingerprint)) {
    throw new ConfigError(
      "--master-fingerprint: expected a SHA-256 fingerprint, 64 hex digits (colons allowed)",
    );
  }
  if (tls?.ca !== undefined && !tls.ca.includes("-----BEGIN CERTIFICATE-----")) {
    throw new ConfigError("--master-ca: expected a PEM certificate (-----BEGIN CERTIFICATE-----)");
  }
  const labels = options.labels ?? labelsFromEnv(env.VOLLEY_LABELS);
  const checked = workerLabelsSchema.safeParse(labels);
  if (!checked.success) {
    throw new ConfigError(`--label: ${checked.error.issues.map((i) => i.message).join("; ")}`);
  }
  const cores = availableParallelism();
  const threads = options.threads ?? cores;
  if (!Number.isInteger(threads) || threads < 1 || threads > 1024) {
    throw new ConfigError(`--threads: must be a whole number from 1 to 1024, got ${options.threads}`);
  }
  return {
    masterUrl: master.origin,
    token: options.token ?? (env.VOLLEY_TOKEN || undefined),
    threads,
    name: options.name ?? `${hostname()}-${process.pid}`,
    // "" is no URL: an empty REDIS_URL leaves the choice to the master's word (as everywhere).
    redisUrl: options.redisUrl || env.REDIS_URL || undefined,
    local: options.local ?? false,
    maxBufferedBatches: options.maxBufferedBatches ?? 600,
    logLevel: options.logLevel ?? env.VOLLEY_LOG_LEVEL ?? "info",
    logFormat: logFormatOf(options.logFormat, env),
    threadStallMs: options.threadStallMs ?? 10_000,
    masterTls: tls,
    labels,
    workerId: randomUUID(),
    host: hostname(),
    cores,
  };
}

/** VOLLEY_LABELS: "pool=eu,tier=big" (commas or spaces between pairs). */
export function labelsFromEnv(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of (text ?? "").split(/[\s,]+/).filter(Boolean)) {
    const pair = parseLabel(item);
    if (typeof pair === "string") throw new ConfigError(`VOLLEY_LABELS: ${pair}`);
    labels[pair[0]] = pair[1];
  }
  return labels;
}
