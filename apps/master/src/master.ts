import { X509Certificate } from "node:crypto";
import { hostname } from "node:os";
import { openDatabase, redact } from "@volley/db";
import { ConfigError, humanLogStream, VOLLEY_VERSION, withTimeout } from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { AuditLog } from "./access/audit-log.js";
import { TokenStore } from "./access/token-store.js";
import { buildApp } from "./app.js";
import { boundPort, instanceId, isWildcard, urlHost } from "./listen-addresses.js";
import { OtlpPush } from "./metrics/otlp-push.js";
import { finalSource, liveSource } from "./metrics/run-samples.js";
import { isLoopback, type MasterOptions, resolveMasterOptions } from "./options.js";
import { BatchIntake } from "./pipeline/batch-intake.js";
import { StatsConsumers } from "./pipeline/stats-consumers.js";
import { StatsPipeline } from "./pipeline/stats-pipeline.js";
import type { RouteEntry } from "./plugins/route-access.js";
import { connectRedis } from "./redis-connection.js";
import { RunLease } from "./runs/run-lease.js";
import { RunScheduler } from "./runs/run-scheduler.js";
import { RunWebhooks } from "./runs/run-webhooks.js";
import { SecondsRetention } from "./runs/seconds-retention.js";
import { ScheduleRunner } from "./schedules/schedule-runner.js";
import type { Services } from "./services.js";
import { LocalWorkers } from "./workers/local-workers.js";
import { WorkerRegistry } from "./workers/worker-registry.js";
import { LiveHub } from "./ws/live-hub.js";

/** Longest the last checkpoint may take at shutdown. */
const SHUTDOWN_FLUSH_MS = 10_000;
/**
 * Longest any other shutdown step may take. A stuck step (a pg pool whose client was stranded by a
 * terminated backend never ends) is logged by name and left behind: SIGTERM must end the master.
 */
const SHUTDOWN_STEP_MS = 10_000;

export interface RunningMaster {
  /** Base URL of the API and dashboard. */
  url: string;
  services: Services;
  /** Every route of the API listener with its declared access (the role matrix test walks it). */
  routeTable(): RouteEntry[];
  close(): Promise<void>;
}

/** Starts a master: database (migrated), Redis, stats pipeline, HTTP and WebSocket listeners. */
export async function startMaster(options: MasterOptions = {}): Promise<RunningMaster> {
  const opts = resolveMasterOptions(options);
  const log = pino(
    {
      level: opts.logLevel,
      base: { service: "volley-master" },
      redact: ["token", "*.token", "headers.authorization"],
    },
    opts.logFormat === "human" && opts.logDestination === undefined
      ? humanLogStream(process.stdout)
      : pino.destination({ dest: opts.logDestination ?? 1, sync: false }),
  );
  const db = await openDatabase({ url: opts.databaseUrl }).catch((error: Error) => {
    throw new ConfigError(`cannot open the database at ${redact(opts.databaseUrl)}: ${error.message}`);
  });
  log.info({ database: db.provider, location: db.location }, "database ready");
  const redis = await connectRedis(opts.redisUrl, log).catch(async (error: Error) => {
    await db.close();
    throw error;
  });
  // Every Redis client and queue reports through the log: without a listener ioredis writes raw
  // stacks to the console, which breaks the JSON-lines log during an outage.
  const consumerConnection = redis.duplicate({ maxRetriesPerRequest: null });
  consumerConnection.on("error", (error) => log.warn({ err: error.message }, "redis connection error"));
  const live = new LiveHub();
  const lease = new RunLease({ db, owner: instanceId(opts.instanceId, opts.port), leaseMs: opts.runLeaseMs });
  log.info({ instance: lease.owner }, "master instance");
  let scheduler!: RunScheduler;
  const pipeline = new StatsPipeline({
    db,
    owner: lease.owner,
    log,
    lateMs: opts.lateMs,
    onSecond: (second) => live.publish(second),
    onRunComplete: (runId) => void scheduler.runComplete(runId),
  });
  let workersChanged = false;
  const registry = new WorkerRegistry({
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs,
    heartbeatIntervalMs: opts.heartbeatIntervalMs,
    lostRetentionMs: opts.lostWorkerRetentionMs,
    keep: (workerId) => scheduler.workers.inActiveRun(workerId),
    inProgress: (runId) => scheduler.isActive(runId),
    onLost: (entry) => {
      log.warn({ workerId: entry.info.id, name: entry.info.name }, "worker lost");
      scheduler.workers.lost(entry.info.id);
    },
    onChange: () => {
      workersChanged = true;
    },
  });
  const intake = new BatchIntake(pipeline);
  const consumers = new StatsConsumers({
    redis,
    consumerConnection,
    prefix: opts.queuePrefix,
    intake,
    log,
  });
  const retention = new SecondsRetention(db, opts.keepSecondsDays, log);
  const audit = new AuditLog(db, log);
  const webhooks = new RunWebhooks({
    urls: opts.webhooks,
    token: opts.token,
    log,
    retryDelayMs: opts.webhookRetryDelayMs,
  });
  scheduler = new RunScheduler({
    db,
    registry,
    pipeline,
    lease,
    ingest: consumers,
    log,
    publish: (m) => live.publish(m),
    startDelayMs: opts.startDelayMs,
    overrunMs: opts.runOverrunMs,
    masterEnv: Object.fromEntries(
      opts.envFromMaster.flatMap((name) =>
        process.env[name] === undefined ? [] : [[name, process.env[name]]],
      ),
    ),
    onRunEnded: (run) => {
      webhooks.runFinished(run);
      schedules
        .runFinished(run)
        .catch((error: Error) =>
          log.warn(
            { runId: run.id, err: error.message },
            "the scheduled run could not be judged against its baseline",
          ),
        );
      void otlp?.runEnded(run.id, async () => {
        const stats = await scheduler.stats(run.id);
        return stats ? finalSource(run, stats) : null;
      });
    },
  });
  const schedules = new ScheduleRunner({ db, scheduler, audit, webhooks, log });
  const otlp = opts.otlpUrl
    ? new OtlpPush({
        url: opts.otlpUrl,
        intervalMs: opts.otlpIntervalMs,
        version: VOLLEY_VERSION,
        log,
        live: () =>
          scheduler.activeRunIds.flatMap((runId) => {
            const run = pipeline.active(runId);
            return run ? [liveSource(run)] : [];
          }),
      })
    : null;
  let localWorkerUrl = "";
  const localWorkers = new LocalWorkers({
    command: opts.workerCommand ?? { command: process.execPath, args: [] },
    masterUrl: () => localWorkerUrl,
    token: opts.token,
    // Local workers pin this master's own certificate.
    masterFingerprint: opts.tls ? new X509Certificate(opts.tls.cert).fingerprint256 : undefined,
    max: opts.maxLocalWorkers,
    log,
  });
  const services: Services = {
    config: {
      version: VOLLEY_VERSION,
      token: opts.token,
      apiTokenRequired: opts.token !== undefined,
      listenHost: opts.host,
      workerListenHost: opts.workerListener?.host ?? null,
      allowedHosts: opts.allowedHosts,
      workerUrl: "",
      tls: opts.tls,
      requestTimeoutMs: opts.requestTimeoutMs,
      heartbeatIntervalMs: opts.heartbeatIntervalMs,
      redisUrlForWorkers: isLoopback(new URL(opts.redisUrl).hostname) ? null : opts.redisUrl,
      queuePrefix: opts.queuePrefix,
      webRoot: opts.webRoot,
      bodyLimit: opts.bodyLimit,
      keepSecondsDays: opts.keepSecondsDays,
      oidc: opts.oidc,
    },
    log,
    db,
    redis,
    retention,
    registry,
    scheduler,
    pipeline,
    intake,
    consumers,
    live,
    localWorkers,
    tokens: new TokenStore(db),
    audit,
    schedules,
  };

  await scheduler.adopt();
  pipeline.start();
  registry.start();
  scheduler.start();
  retention.start();
  await schedules.start();
  const workersTimer = setInterval(() => {
    if (!workersChanged) return;
    workersChanged = false;
    live.publish({ type: "workers", workers: registry.list() });
  }, 500);

  const apps: FastifyInstance[] = [];
  const close = () => {
    closing ??= (async () => {
      clearInterval(workersTimer);
      schedules.stop();
      await scheduler.stop();
      await otlp?.close();
      retention.stop();
      registry.stop();
      live.closeAll();
      const bounded = (step: string, work: Promise<unknown>) =>
        withTimeout(work, SHUTDOWN_STEP_MS).catch((error: Error) =>
          log.error({ err: error.message, step }, "a shutdown step did not finish; going on without it"),
        );
      await bounded("listeners", Promise.all(apps.map((app) => app.close())));
      await localWorkers.stopAll();
      await bounded("stats consumers", consumers.closeAll());
      // Bounded: a database that does not take the last checkpoint must not keep the master up.
      // What was not written stays in Redis (its jobs were never completed) for the next start.
      await withTimeout(pipeline.stop(), SHUTDOWN_FLUSH_MS).catch((error: Error) =>
        log.error(
          { err: error.message },
          "the last checkpoint was not written; the next start resumes from Redis",
        ),
      );
      await bounded("database", db.close());
      redis.disconnect();
      log.info("master stopped");
      log.flush();
    })();
    return closing;
  };
  let closing: Promise<void> | null = null;
  try {
    for (const [listen, workersOnly] of [
      [{ host: opts.host, port: opts.port }, false],
      ...(opts.workerListener ? [[opts.workerListener, true] as const] : []),
    ] as const) {
      const app = await buildApp(services, workersOnly);
      apps.push(app);
      await app.listen(listen);
    }
  } catch (error) {
    await close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") {
      throw new ConfigError(`cannot listen: "${opts.host}" is not a known address or host name`);
    }
    if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES") {
      throw new ConfigError(`cannot listen: ${(error as Error).message} (choose another --host or --port)`);
    }
    throw error;
  }
  const scheme = opts.tls ? "https" : "http";
  const url = `${scheme}://${urlHost(opts.host)}:${boundPort(apps[0])}`;
  // Workers use the worker listener when there is one; a wildcard address is advertised by name.
  const workerHost = opts.workerListener?.host ?? opts.host;
  const workerPort = boundPort(apps[apps.length - 1]);
  services.config.workerUrl = `${scheme}://${urlHost(isWildcard(workerHost) ? hostname() : workerHost)}:${workerPort}`;
  localWorkerUrl = `${scheme}://${urlHost(isWildcard(workerHost) ? "127.0.0.1" : workerHost)}:${workerPort}`;
  if (opts.localWorkers > 0) localWorkers.start(opts.localWorkers, opts.localWorkerThreads);
  log.info(
    { url, workers: opts.workerListener ?? "same listener", redis: redact(opts.redisUrl) },
    "master listening",
  );

  return { url, services, close, routeTable: () => apps[0].routeTable() };
}
