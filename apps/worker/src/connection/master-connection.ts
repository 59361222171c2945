import {
  formatIssues,
  MAX_MASTER_MESSAGE_BYTES,
  type MasterAuth,
  type MasterToWorker,
  masterToWorkerSchema,
  WORKER_NONCE_HEADER,
  WORKER_TOKEN_ID_HEADER,
  type WorkerToMaster,
} from "@volley/protocol";
import { linkKey, linkProof, newNonce, proofMatches } from "@volley/protocol/worker-auth";
import type { Logger } from "pino";
import WebSocket from "ws";

export interface MasterConnectionOptions {
  /** The master's base URL, e.g. http://10.0.0.5:8089. */
  masterUrl: string;
  token?: string;
  log: Logger;
  onOpen: () => void;
  onMessage: (message: MasterToWorker) => void;
  onClose: () => void;
  /** First reconnect delay; doubles up to maxDelayMs, with jitter. @defaultValue 250 */
  baseDelayMs?: number;
  /** @defaultValue 10000 */
  maxDelayMs?: number;
  /** TLS of a `https://` master: the CA to trust, or the SHA-256 fingerprint of its certificate. */
  tls?: MasterTls;
}

export interface MasterTls {
  /** PEM of the CA (or the master's own certificate) to trust instead of the system's. */
  ca?: string;
  /** SHA-256 fingerprint of the master's certificate (hex, colons optional): pinned, any issuer. */
  fingerprint?: string;
}

/** How long the master has to prove it knows the token once the socket is open. */
const AUTH_TIMEOUT_MS = 5000;

/** The worker's socket to the master, reconnecting by itself with jittered exponential backoff. */
export class MasterConnection {
  private socket: WebSocket | null = null;
  /** The socket's nonces once the master proved itself; null until then (nothing is sent). */
  private link: { workerNonce: string; masterNonce: string } | null = null;
  private attempts = 0;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: MasterConnectionOptions) {}

  /** Open, and the master proved it knows the token. */
  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN && this.link !== null;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  send(message: WorkerToMaster): boolean {
    if (!this.connected || this.link === null) return false;
    const { token } = this.options;
    const signed =
      message.type === "hello" && token
        ? {
            ...message,
            proof: linkProof(linkKey(token).key, "worker", this.link.workerNonce, this.link.masterNonce),
          }
        : message;
    this.socket?.send(JSON.stringify(signed));
    return true;
  }

  /** Closes the socket and stops reconnecting. */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.socket?.close(1000, "worker stopping");
  }

  private connect(): void {
    const url = new URL("/ws/worker", this.options.masterUrl);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const workerNonce = newNonce();
    const tls = this.options.tls;
    const socket = new WebSocket(url, {
      // A nonce, never the token: the master proves itself first (see onAuth).
      // A join token names its id so the master knows which key to prove; the secret stays here.
      headers: { [WORKER_NONCE_HEADER]: workerNonce, ...this.tokenIdHeader() },
      maxPayload: MAX_MASTER_MESSAGE_BYTES,
      handshakeTimeout: 5000,
      ...(tls?.ca ? { ca: tls.ca } : {}),
      // A pinned certificate is checked by its fingerprint below, whoever issued it.
      ...(tls?.fingerprint ? { rejectUnauthorized: false } : {}),
    });
    this.socket = socket;
    this.link = null;
    let authTimer: NodeJS.Timeout | null = null;
    socket.on("upgrade", (response) => {
      const pinned = tls?.fingerprint;
      if (!pinned) return;
      const peer = (response.socket as import("node:tls").TLSSocket).getPeerCertificate?.();
      if (
        !peer?.fingerprint256 ||
        normalizeFingerprint(peer.fingerprint256) !== normalizeFingerprint(pinned)
      ) {
        this.options.log.error(
          { master: this.options.masterUrl, fingerprint: peer?.fingerprint256 ?? null },
          "cannot join the master: its certificate does not match --master-fingerprint",
        );
        socket.terminate();
      }
    });
    socket.on("open", () => {
      this.options.log.debug(
        { master: this.options.masterUrl },
        "socket open: waiting for the master's proof",
      );
      authTimer = setTimeout(() => {
        this.options.log.error(
          { master: this.options.masterUrl },
          "cannot join the master: it did not prove it knows the token",
        );
        socket.terminate();
      }, AUTH_TIMEOUT_MS);
    });
    socket.on("unexpected-response", (_request, response) => {
      const why =
        response.statusCode === 401 ? "the master refused the token" : `HTTP ${response.statusCode}`;
      this.options.log.error({ master: this.options.masterUrl }, `cannot join the master: ${why}`);
      socket.terminate();
    });
    socket.on("message", (data) => {
      let message: MasterToWorker;
      try {
        const parsed = masterToWorkerSchema.safeParse(JSON.parse(data.toString()));
        if (!parsed.success) {
          const details = formatIssues(parsed.error)
            .map((i) => `${i.path}: ${i.message}`)
            .join("; ");
          this.options.log.warn({ details }, "ignored a malformed message from the master");
          return;
        }
        message = parsed.data;
      } catch {
        this.options.log.warn("ignored a message from the master that is not JSON");
        return;
      }
      if (this.socket !== socket) return;
      if (this.link === null) {
        if (authTimer) clearTimeout(authTimer);
        if (message.type !== "auth") {
          this.options.log.error(
            { master: this.options.masterUrl, first: message.type },
            "cannot join the master: it did not prove it knows the token",
          );
          return void socket.terminate();
        }
        if (!this.authenticates(message, workerNonce)) return void socket.terminate();
        this.link = { workerNonce, masterNonce: message.nonce };
        this.attempts = 0;
        this.options.log.info({ master: this.options.masterUrl }, "connected to the master");
        this.options.onOpen();
        return;
      }
      if (message.type === "auth") return; // once per socket
      this.options.onMessage(message);
    });
    socket.on("error", (error) => this.options.log.debug({ err: error.message }, "master socket error"));
    socket.on("close", (code) => {
      if (authTimer) clearTimeout(authTimer);
      if (code === 4003) {
        this.options.log.error(
          { master: this.options.masterUrl },
          "cannot join the master: it refused the token",
        );
      }
      if (this.socket !== socket) return;
      const joined = this.link !== null;
      this.socket = null;
      this.link = null;
      if (joined) this.options.onClose();
      if (!this.stopped) this.scheduleReconnect();
    });
  }

  /** Whether the master's first message proves it knows our token (any master, without one). */
  private authenticates(message: MasterAuth, workerNonce: string): boolean {
    const { token, log, masterUrl } = this.options;
    if (!token) return true;
    if (proofMatches(message.proof, linkProof(linkKey(token).key, "master", workerNonce, message.nonce)))
      return true;
    log.error(
      { master: masterUrl },
      message.proof === null
        ? "cannot join the master: it has no token, this worker has one (is --master the right address?)"
        : "cannot join the master: it does not know the token (is --master the right address?)",
    );
    return false;
  }

  private tokenIdHeader(): Record<string, string> {
    const tokenId = this.options.token ? linkKey(this.options.token).tokenId : null;
    return tokenId ? { [WORKER_TOKEN_ID_HEADER]: tokenId } : {};
  }

  private scheduleReconnect(): void {
    const base = this.options.baseDelayMs ?? 250;
    const max = this.options.maxDelayMs ?? 10_000;
    const ceiling = Math.min(max, base * 2 ** this.attempts++);
    // "Full jitter": many workers coming back at once spread over the interval.
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }
}

function normalizeFingerprint(text: string): string {
  return text.replace(/:/g, "").toLowerCase();
}
