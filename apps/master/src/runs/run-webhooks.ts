import { createHmac } from "node:crypto";
import type { Regression, RunDetail } from "@volley/protocol";
import type { Logger } from "pino";

export interface RunWebhooksOptions {
  urls: readonly string[];
  /** Signs each body (`x-volley-signature: sha256=HMAC(token, body)`) when set. */
  token: string | undefined;
  log: Logger;
  /** Attempts per delivery. @defaultValue 5 */
  attempts?: number;
  /** First retry delay, doubled each time. @defaultValue 1000 */
  retryDelayMs?: number;
  /** Each attempt's deadline. @defaultValue 10000 */
  timeoutMs?: number;
}

/** What a `run.finished` webhook carries. */
export function runFinishedEvent(run: RunDetail) {
  return {
    event: "run.finished",
    run: {
      id: run.id,
      name: run.name,
      status: run.status,
      stopReason: run.stopReason,
      verdict: run.trust.verdict,
      passed: run.passed,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      summary: { total: run.summary.total },
      thresholds: run.thresholds,
    },
  };
}

/** What a `run.regressed` webhook carries: the run as `run.finished` does, its baseline, and what regressed. */
export function runRegressedEvent(run: RunDetail, baselineId: string, regressions: Regression[]) {
  return {
    ...runFinishedEvent(run),
    event: "run.regressed",
    baseline: { id: baselineId },
    regressions: regressions.map((r) => ({ metric: r.metric, line: r.line })),
  };
}

/**
 * POSTs `run.finished` to each configured URL when a run ends (and `run.regressed` when a
 * scheduled run is worse than its baseline): in the background (never
 * blocking the run or the next one), retried with exponential backoff on a network error or a
 * non-2xx answer, given up after the last attempt with an error in the log.
 */
export class RunWebhooks {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: RunWebhooksOptions) {}

  runFinished(run: RunDetail): void {
    this.send(runFinishedEvent(run), run.id);
  }

  runRegressed(run: RunDetail, baselineId: string, regressions: Regression[]): void {
    this.send(runRegressedEvent(run, baselineId, regressions), run.id);
  }

  private send(event: object, runId: string): void {
    if (this.options.urls.length === 0) return;
    const body = JSON.stringify(event);
    for (const url of this.options.urls) {
      const delivery = this.deliver(url, body, runId).finally(() => this.pending.delete(delivery));
      this.pending.add(delivery);
    }
  }

  /** Waits for deliveries in progress (at shutdown, bounded by their retries). */
  async settle(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async deliver(url: string, body: string, runId: string): Promise<void> {
    const { token, log } = this.options;
    const attempts = this.options.attempts ?? 5;
    const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "volley" };
    if (token)
      headers["x-volley-signature"] = `sha256=${createHmac("sha256", token).update(body).digest("hex")}`;
    // fetch refuses a URL with credentials: they travel as Basic authentication instead.
    const target = new URL(url);
    if (target.username || target.password) {
      const user = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
      headers.authorization = `Basic ${Buffer.from(user).toString("base64")}`;
      target.username = "";
      target.password = "";
    }
    let why = "";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const answer = await fetch(target, {
          method: "POST",
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
        // Only the status matters: the body is dropped unread (one answering gigabytes cost the
        // master what it sent, and kept it).
        await answer.body?.cancel().catch(() => undefined);
        if (answer.status >= 200 && answer.status < 300) {
          log.info({ runId, url: redactUrl(url), attempt }, "webhook delivered");
          return;
        }
        why = `answered ${answer.status}`;
      } catch (error) {
        why = (error as Error).message;
      }
      if (attempt < attempts) {
        await new Promise((resolve) =>
          setTimeout(resolve, (this.options.retryDelayMs ?? 1000) * 2 ** (attempt - 1)),
        );
      }
    }
    log.error({ runId, url: redactUrl(url), why, attempts }, "webhook not delivered");
  }
}

/** A URL as logged: no credentials or query (they may hold a secret). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "(invalid url)";
  }
}
