import { formatIssues, type MasterToWorker, workerToMasterSchema } from "@volley/protocol";
import { linkProof, newNonce, proofMatches } from "@volley/protocol/worker-auth";
import type { Logger } from "pino";
import type { WebSocket } from "ws";
import type { RunScheduler } from "../runs/run-scheduler.js";
import type { WorkerChannel, WorkerRegistry } from "../workers/worker-registry.js";

export interface WorkerSocketDeps {
  registry: WorkerRegistry;
  scheduler: RunScheduler;
  log: Logger;
  heartbeatIntervalMs: number;
  /** Redis URL handed to workers that were started without one. */
  redisUrlForWorkers: string | null;
  queuePrefix: string;
  /** The key this worker must prove it knows (the token, or its join token's hash); undefined when none is set. */
  token: string | undefined;
  /** The join token the worker came with (revoking it disconnects the worker); null for the master's token. */
  joinTokenId: string | null;
}

/** Bad messages a worker may send before the master closes its socket. */
const MAX_BAD_MESSAGES = 20;
/** A socket that has not said a valid hello by then is closed. */
export const HELLO_TIMEOUT_MS = 10_000;
/** Messages a worker may send in a burst, and per second after it (heartbeats come once a second). */
const MESSAGE_BURST = 1000;
const MESSAGES_PER_SECOND = 200;

/**
 * One worker's socket on `/ws/worker`: every message is checked against the shared schema; a
 * malformed or unknown one is answered with an error message and logged, never thrown.
 */
export function handleWorkerSocket(
  socket: WebSocket,
  remoteHost: string,
  deps: WorkerSocketDeps,
  workerNonce: string | null,
): void {
  const { registry, scheduler, log } = deps;
  let workerId: string | null = null;
  let badMessages = 0;
  let allowance = MESSAGE_BURST;
  let lastRefill = Date.now();
  const channel: WorkerChannel = {
    send: (message: MasterToWorker) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    },
    close: (code, reason) => socket.close(code, reason),
  };
  const refuse = (message: string) => {
    badMessages++;
    log.warn({ workerId, remoteHost, message }, "bad message from a worker");
    channel.send({ type: "error", code: "VOL_ERR_BAD_MESSAGE", message });
    if (badMessages >= MAX_BAD_MESSAGES) socket.close(1008, "too many bad messages");
  };

  // Opened with a nonce: the master proves it knows the token before the worker says anything,
  // and expects the worker's proof in its hello (opened with the Bearer token: proved already).
  const masterNonce = workerNonce === null ? null : newNonce();
  if (workerNonce !== null && masterNonce !== null) {
    const proof = deps.token ? linkProof(deps.token, "master", workerNonce, masterNonce) : null;
    channel.send({ type: "auth", nonce: masterNonce, proof });
  }
  const helloTimer = setTimeout(() => {
    log.warn({ remoteHost }, "worker socket closed: no hello in time");
    socket.close(1008, "no hello in time");
  }, HELLO_TIMEOUT_MS);

  socket.on("message", (data, isBinary) => {
    const now = Date.now();
    allowance = Math.min(MESSAGE_BURST, allowance + ((now - lastRefill) / 1000) * MESSAGES_PER_SECOND);
    lastRefill = now;
    if (--allowance < 0) {
      log.warn({ workerId, remoteHost }, "worker socket closed: too many messages");
      return socket.close(1008, "too many messages");
    }
    if (isBinary) return refuse("binary messages are not part of the protocol");
    let json: unknown;
    try {
      json = JSON.parse(data.toString());
    } catch {
      return refuse("the message is not JSON");
    }
    const parsed = workerToMasterSchema.safeParse(json);
    if (!parsed.success) {
      return refuse(
        formatIssues(parsed.error)
          .map((i) => `${i.path}: ${i.message}`)
          .join("; "),
      );
    }
    const message = parsed.data;
    if (message.type === "hello") {
      if (workerId !== null) {
        // One identity per socket: a second hello is how one socket would pose as many workers.
        refuse(`this socket is worker ${workerId} already; a second "hello" is not allowed`);
        return socket.close(1008, "one worker per connection");
      }
      if (workerNonce !== null && masterNonce !== null && deps.token) {
        if (!proofMatches(message.proof, linkProof(deps.token, "worker", workerNonce, masterNonce))) {
          log.warn(
            { workerId: message.workerId, remoteHost },
            "worker refused: wrong or missing proof of the token",
          );
          channel.send({
            type: "error",
            code: "VOL_ERR_UNAUTHORIZED",
            message: "wrong or missing worker token",
          });
          return socket.close(4003, "wrong token");
        }
      }
      clearTimeout(helloTimer);
      if (!registry.connect(message, channel, remoteHost, deps.joinTokenId)) {
        log.warn(
          { workerId: message.workerId, remoteHost },
          "refused a hello for a worker that is connected",
        );
        channel.send({
          type: "error",
          code: "VOL_ERR_BAD_MESSAGE",
          message: `worker ${message.workerId} is connected already`,
        });
        return socket.close(4002, "worker id in use");
      }
      workerId = message.workerId;
      channel.send({
        type: "welcome",
        workerId: message.workerId,
        serverTime: Date.now(),
        heartbeatIntervalMs: deps.heartbeatIntervalMs,
        redisUrl: deps.redisUrlForWorkers,
        queuePrefix: deps.queuePrefix,
      });
      log.info(
        { workerId, name: message.name, host: message.host, threads: message.threads },
        "worker connected",
      );
      scheduler.workers.connected(message.workerId, message.activeRunId);
      return;
    }
    if (workerId === null) return refuse(`"${message.type}" before "hello"`);
    switch (message.type) {
      case "heartbeat": {
        const entry = registry.heartbeat(workerId, message);
        if (entry) scheduler.workers.heartbeat(workerId, message, entry.info.saturated);
        return;
      }
      case "clock-ping":
        channel.send({ type: "clock-pong", id: message.id, t0: message.t0, serverTime: Date.now() });
        return;
      case "run-accepted":
        log.info({ workerId, runId: message.runId }, "worker ready for the run");
        return;
      case "run-rejected":
        scheduler.workers.rejected(workerId, message.runId, message.message);
        return;
      case "rows-released": {
        const problem = scheduler.workers.rowsReleased(workerId, message);
        if (problem) log.warn({ workerId, runId: message.runId, problem }, "released rows not taken");
        return;
      }
      case "run-ended":
        log.info({ workerId, runId: message.runId, lastSeq: message.lastSeq }, "worker finished its part");
        if (!scheduler.isActive(message.runId)) registry.release(workerId, message.runId);
        return;
    }
  });
  socket.on("close", () => {
    clearTimeout(helloTimer);
    if (workerId) registry.disconnected(workerId, channel);
  });
  socket.on("error", (error) => log.warn({ workerId, err: error.message }, "worker socket error"));
}
