import {
  formatIssues,
  MAX_MASTER_MESSAGE_BYTES,
  type MasterToWorker,
  masterToWorkerSchema,
  type WorkerToMaster,
} from "@volley/protocol";
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
}

/** The worker's socket to the master, reconnecting by itself with jittered exponential backoff. */
export class MasterConnection {
  private socket: WebSocket | null = null;
  private attempts = 0;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: MasterConnectionOptions) {}

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  send(message: WorkerToMaster): boolean {
    if (!this.connected) return false;
    this.socket?.send(JSON.stringify(message));
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
    const socket = new WebSocket(url, {
      headers: this.options.token ? { authorization: `Bearer ${this.options.token}` } : {},
      maxPayload: MAX_MASTER_MESSAGE_BYTES,
      handshakeTimeout: 5000,
    });
    this.socket = socket;
    socket.on("open", () => {
      this.attempts = 0;
      this.options.log.info({ master: this.options.masterUrl }, "connected to the master");
      this.options.onOpen();
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
      this.options.onMessage(message);
    });
    socket.on("error", (error) => this.options.log.debug({ err: error.message }, "master socket error"));
    socket.on("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.options.onClose();
      if (!this.stopped) this.scheduleReconnect();
    });
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
