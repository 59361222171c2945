import { setTimeout as sleep } from "node:timers/promises";
import type { ErrorKind } from "@volley/protocol";
import type { RequestRecorder } from "@volley/stats";
import { RequestFailedError } from "../http/request-failed-error.js";
import type { TemplateContext } from "../scenario/compiled-template.js";
import type { CompiledWs } from "../scenario/compiled-ws.js";
import type { VuContext } from "../vu/vu-context.js";
import { RecordedSocket } from "./recorded-socket.js";

/** What a `ws:` request needs of the VU it runs for. */
export interface WsExchangeOwner {
  readonly ctx: VuContext;
  readonly template: TemplateContext;
  /** The request is over: its steps ran (failure null), one failed, or it was aborted. */
  wsDone(failure: [ErrorKind, string] | null): void;
}

/**
 * A declarative `ws:` request, from the handshake to the last step: messages sent, awaited ones
 * timed from the send under their names, pauses, and the socket closed at the end (politely; at
 * once on an abort). A VU holds one and runs its `ws:` requests in turn.
 */
export class WsExchange {
  active = false;
  private run = 0;
  private socket: RecordedSocket | null = null;
  private abortController: AbortController | null = null;

  constructor(private readonly owner: WsExchangeOwner) {}

  start(index: number, scheduledAt: number): void {
    const run = ++this.run;
    this.active = true;
    this.abortController = new AbortController();
    const request = this.owner.ctx.requests[index];
    const recorder = this.owner.ctx.recorders[index];
    this.steps(run, request.ws as CompiledWs, recorder, scheduledAt).then(
      () => this.done(run, null),
      (error: unknown) =>
        this.done(
          run,
          error instanceof RequestFailedError
            ? [error.kind, error.reason]
            : ["other", (error as Error).message ?? String(error)],
        ),
    );
  }

  private async steps(
    run: number,
    ws: CompiledWs,
    recorder: RequestRecorder,
    scheduledAt: number,
  ): Promise<void> {
    const { template, ctx } = this.owner;
    const headers: Record<string, string> = {};
    ws.headerNames.forEach((name, i) => {
      headers[name] = ws.headerValues[i].render(template);
    });
    const signal = this.abortController?.signal;
    const socket = await RecordedSocket.open({
      url: ws.url.render(template),
      headers,
      timeoutMs: ws.timeoutMs,
      network: ctx.network,
      recorder,
      startedAt: scheduledAt,
      signal,
    });
    if (run !== this.run) {
      socket.terminate();
      return;
    }
    this.socket = socket;
    try {
      for (const step of ws.steps) {
        if (step.kind === "send") socket.send(step.text.render(template));
        else if (step.kind === "expect") {
          const text = step.text.render(template);
          await socket.next(text, step.timeoutMs, ctx.namedRecorders.get(step.name) ?? null);
        } else if (step.kind === "sleep") await sleep(step.ms, undefined, { signal });
        else {
          await socket.close();
          return;
        }
      }
      await socket.close();
    } catch (error) {
      // A failed step ends the socket too: nothing stays open after its request.
      socket.terminate();
      if ((error as Error).name === "AbortError")
        throw new RequestFailedError("aborted", "aborted at the end of gracefulStop");
      throw error;
    }
  }

  private done(run: number, failure: [ErrorKind, string] | null): void {
    if (run !== this.run || !this.active) return; // aborted: the VU ended it already
    this.active = false;
    this.socket = null;
    this.owner.wsDone(failure);
  }

  /** Ends the request now (the end of gracefulStop): the socket is cut, the VU told at once. */
  abort(): void {
    if (!this.active) return;
    this.active = false;
    this.run++;
    this.abortController?.abort();
    this.socket?.terminate();
    this.socket = null;
  }
}
