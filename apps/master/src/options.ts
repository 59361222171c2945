import { createPrivateKey, X509Certificate } from "node:crypto";
import { cpus } from "node:os";
import { ConfigError, type LogFormat, logFormatOf, REDIS_PREFIX, redisUrlOf } from "@volley/protocol";
import { type OidcOptions, type ResolvedOidc, resolveOidc } from "./access/oidc-config.js";
import { isLoopback } from "./loopback.js";
import type { WorkerCommand } from "./workers/local-workers.js";

export interface MasterOptions {
  /** @defaultValue 8089 */
  port?: number;
  /** @defaultValue "127.0.0.1" */
  host?: string;
  /**
   * A second listener for workers only (WebSocket + health), e.g. `{ host: "0.0.0.0", port: 8090 }`,
   * so the API and dashboard can stay on loopback. It always requires the token.
   */
  workerListener?: { host: string; port: number };
  /**
   * How long past a run's planned end (and graceful stop) its workers are told to stop (stop
   * reason `deadline`); as long again, and those still silent are lost. @defaultValue 30000
   */
  runOverrunMs?: number;
  /**
   * Longest an HTTP request may take to arrive whole (head and body); a connection that sends
   * nothing, or a body byte by byte, is closed then. WebSockets are not affected. @defaultValue 120000
   */
  requestTimeoutMs?: number;
  /**
   * Serve HTTPS and WSS (API, dashboard and the worker link) with this certificate and key (PEM).
   * Workers then join with `https://` and `--master-ca` or `--master-fingerprint`. @defaultValue none (plain HTTP)
   */
  tls?: { cert: string; key: string };
  /**
   * Host names (in the `Host` header) the master answers besides its loopback names. A loopback
   * master answers only those; beyond loopback any name is answered unless this lists them.
   * @defaultValue VOLLEY_ALLOWED_HOSTS (comma-separated) or none
   */
  allowedHosts?: string[];
  /** Shared secret of workers (and API clients off loopback). @defaultValue VOLLEY_TOKEN */
  token?: string;
  /** @defaultValue REDIS_URL or redis://127.0.0.1:6379 */
  redisUrl?: string;
  /** @defaultValue DATABASE_URL or file:./data/volley.db */
  databaseUrl?: string;
  /** Local worker processes to start with the master. @defaultValue 0 */
  localWorkers?: number;
  /** Threads of each local worker. @defaultValue 1 */
  localWorkerThreads?: number;
  /** Most local workers at once. @defaultValue the machine's cores */
  maxLocalWorkers?: number;
  /** How to start `volley worker` (needed for local workers). */
  workerCommand?: WorkerCommand;
  /** A worker silent this long is lost. @defaultValue 5000 */
  heartbeatTimeoutMs?: number;
  /** @defaultValue 1000 */
  heartbeatIntervalMs?: number;
  /** Lost workers leave the worker list after this long (unless the running run has them). @defaultValue 600000 */
  lostWorkerRetentionMs?: number;
  /** Built dashboard; @defaultValue apps/web/dist */
  webRoot?: string | null;
  /** @defaultValue "info" */
  logLevel?: string;
  /** JSON lines, or short lines for a person. @defaultValue human on a terminal, else json (VOLLEY_LOG_FORMAT) */
  logFormat?: LogFormat;
  /** Log to this file descriptor or path instead of stdout. */
  logDestination?: string | number;
  /** Time from accepting a run to its common start. @defaultValue 1500 */
  startDelayMs?: number;
  /** Grace before a second closes without a late worker. @defaultValue 5000 */
  lateMs?: number;
  /** Largest API body. @defaultValue 1 MiB */
  bodyLimit?: number;
  /** Key prefix of the stats queue, to share one Redis between installations. @defaultValue VOLLEY_QUEUE_PREFIX or "volley" */
  queuePrefix?: string;
  /**
   * Name this master owns its runs by. Two masters sharing a database and Redis need different
   * ones; a restarted master with the same one resumes its runs at once.
   * @defaultValue VOLLEY_INSTANCE_ID or "HOSTNAME:PORT" (a random suffix for port 0)
   */
  instanceId?: string;
  /** A run whose owner has not renewed its lease for this long is taken over by another master. @defaultValue VOLLEY_RUN_LEASE_MS or 15000 */
  runLeaseMs?: number;
  /** URLs that get a POST `run.finished` when a run ends (signed with the token when set). @defaultValue none */
  webhooks?: string[];
  /** First retry delay of a webhook, doubled each attempt (5 attempts). @defaultValue 1000 */
  webhookRetryDelayMs?: number;
  /**
   * Names of the master's own environment variables a run's `env` may read when the run does not
   * send the value itself. Nothing else of the master's environment reaches a run (its token,
   * database and Redis URLs stay its own). @defaultValue VOLLEY_ENV_FROM_MASTER (comma list) or none
   */
  envFromMaster?: string[];
  /**
   * OTLP/HTTP endpoint the running run's metrics are pushed to (`http://collector:4318`; a URL
   * without a path gets `/v1/metrics`). @defaultValue VOLLEY_OTLP_URL or none
   */
  otlpUrl?: string;
  /** How often metrics are pushed to `otlpUrl`. @defaultValue 10000 */
  otlpIntervalMs?: number;
  /**
   * Days the per-second statistics (exact windows) of a finished run are kept; totals and the
   * time series stay. 0 keeps them forever. @defaultValue VOLLEY_KEEP_SECONDS_DAYS or 0
   */
  keepSecondsDays?: number;
  /**
   * Sign-in through an OpenID Connect provider (needs `token`: a master that asks no credentials
   * has nobody to sign in). @defaultValue VOLLEY_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET, or none
   */
  oidc?: OidcOptions;
}

type OptionalOptions =
  | "workerListener"
  | "token"
  | "workerCommand"
  | "logDestination"
  | "instanceId"
  | "otlpUrl"
  | "tls"
  | "oidc";
export type ResolvedMasterOptions = Required<Omit<MasterOptions, OptionalOptions>> &
  Pick<MasterOptions, Exclude<OptionalOptions, "oidc">> & { oidc?: ResolvedOidc };

export { isLoopback };

export function resolveMasterOptions(options: MasterOptions, env = process.env): ResolvedMasterOptions {
  const resolved: ResolvedMasterOptions = {
    port: options.port ?? 8089,
    host: options.host ?? "127.0.0.1",
    workerListener: options.workerListener,
    tls: options.tls,
    requestTimeoutMs: options.requestTimeoutMs ?? 120_000,
    runOverrunMs: options.runOverrunMs ?? 30_000,
    allowedHosts:
      options.allowedHosts ??
      (env.VOLLEY_ALLOWED_HOSTS ?? "")
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean),
    token: options.token ?? (env.VOLLEY_TOKEN || undefined),
    redisUrl: redisUrlOf(options.redisUrl, env),
    databaseUrl: options.databaseUrl ?? (env.DATABASE_URL || "file:./data/volley.db"),
    localWorkers: options.localWorkers ?? 0,
    localWorkerThreads: options.localWorkerThreads ?? 1,
    maxLocalWorkers: options.maxLocalWorkers ?? cpus().length,
    workerCommand: options.workerCommand,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 5000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 1000,
    lostWorkerRetentionMs: options.lostWorkerRetentionMs ?? 600_000,
    webRoot:
      options.webRoot === undefined ? new URL("../../web/dist", import.meta.url).pathname : options.webRoot,
    logLevel: options.logLevel ?? env.VOLLEY_LOG_LEVEL ?? "info",
    logFormat: logFormatOf(options.logFormat, env),
    logDestination: options.logDestination,
    startDelayMs: options.startDelayMs ?? 1500,
    lateMs: options.lateMs ?? 5000,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    queuePrefix: options.queuePrefix ?? (env.VOLLEY_QUEUE_PREFIX || REDIS_PREFIX),
    instanceId: options.instanceId ?? (env.VOLLEY_INSTANCE_ID || undefined),
    runLeaseMs: options.runLeaseMs ?? (env.VOLLEY_RUN_LEASE_MS ? Number(env.VOLLEY_RUN_LEASE_MS) : 15_000),
    webhooks: options.webhooks ?? [],
    webhookRetryDelayMs: options.webhookRetryDelayMs ?? 1000,
    envFromMaster:
      options.envFromMaster ??
      (env.VOLLEY_ENV_FROM_MASTER ?? "")
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    otlpUrl: options.otlpUrl ?? (env.VOLLEY_OTLP_URL || undefined),
    otlpIntervalMs: options.otlpIntervalMs ?? 10_000,
    keepSecondsDays:
      options.keepSecondsDays ?? (env.VOLLEY_KEEP_SECONDS_DAYS ? Number(env.VOLLEY_KEEP_SECONDS_DAYS) : 0),
    oidc: resolveOidc(options.oidc, env),
  };
  if (resolved.oidc && !resolved.token) {
    throw new ConfigError("OIDC sign-in needs --token (a master without one asks nobody to sign in)");
  }
  if (!(resolved.keepSecondsDays >= 0 && resolved.keepSecondsDays <= 36_500)) {
    throw new ConfigError(`--keep-seconds-days: expected 0 to 36500 days, got ${resolved.keepSecondsDays}`);
  }
  if (resolved.tls) checkTls(resolved.tls);
  for (const url of resolved.webhooks) checkHttpUrl("--webhook", url);
  if (resolved.otlpUrl !== undefined) checkHttpUrl("--otlp", resolved.otlpUrl);
  if (!(resolved.otlpIntervalMs >= 100 && resolved.otlpIntervalMs <= 3_600_000)) {
    throw new ConfigError(`otlpIntervalMs: expected 100 to 3600000 ms, got ${resolved.otlpIntervalMs}`);
  }
  for (const [flag, host] of [
    ["host", resolved.host],
    ["worker listener host", resolved.workerListener?.host],
  ] as const) {
    if (host !== undefined && (host.trim() === "" || host.trim() !== host)) {
      throw new ConfigError(`--${flag.replace(/ /g, "-")}: "${host}" is not an address to listen on`);
    }
  }
  if (resolved.instanceId !== undefined && !/^[A-Za-z0-9._:-]{1,100}$/.test(resolved.instanceId)) {
    throw new ConfigError(
      `VOLLEY_INSTANCE_ID: "${resolved.instanceId.slice(0, 100)}" must be 1-100 letters, digits, ".", "_", ":" or "-"`,
    );
  }
  if (!Number.isInteger(resolved.runLeaseMs) || resolved.runLeaseMs < 1000 || resolved.runLeaseMs > 600_000) {
    throw new ConfigError("VOLLEY_RUN_LEASE_MS: must be a whole number of milliseconds from 1000 to 600000");
  }
  const exposed = [resolved.host, resolved.workerListener?.host].filter(
    (h): h is string => !!h && !isLoopback(h),
  );
  if (exposed.length && !resolved.token) {
    throw new ConfigError(
      `the master would listen on ${exposed.join(", ")}, beyond loopback, without a token: set --token or VOLLEY_TOKEN`,
    );
  }
  if (resolved.workerListener && !resolved.token) {
    throw new ConfigError("a separate worker listener always requires a token: set --token or VOLLEY_TOKEN");
  }
  if (resolved.token !== undefined && resolved.token.length < 8) {
    throw new ConfigError("the token must be at least 8 characters");
  }
  if (resolved.localWorkers > 0 && !resolved.workerCommand) {
    throw new ConfigError("local workers need a workerCommand");
  }
  return resolved;
}

function checkHttpUrl(flag: string, url: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new ConfigError(`${flag}: "${url.slice(0, 200)}" is not an http:// or https:// URL`);
  }
}

/** A certificate and key that parse and belong together, or a ConfigError naming the flag. */
function checkTls(tls: { cert: string; key: string }): void {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(tls.cert);
  } catch (error) {
    throw new ConfigError(`--tls-cert: not a PEM certificate (${(error as Error).message})`);
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(tls.key);
  } catch (error) {
    throw new ConfigError(`--tls-key: not a PEM private key (${(error as Error).message})`);
  }
  if (!certificate.checkPrivateKey(key)) {
    throw new ConfigError("--tls-key: the key does not belong to the certificate of --tls-cert");
  }
}
