import type { HttpResponse } from "@volley/script";

type Timings = Record<
  "blocked" | "connecting" | "tls_handshaking" | "sending" | "waiting" | "receiving" | "duration",
  number
>;

/**
 * A k6 response over Volley's: canonical header names, `json(selector)`, k6's timing names. The
 * body, headers and timings are made when the script reads them (most scripts read the status
 * only, and a request should not build a header map nobody reads). With `responseType: "none"`
 * (or `discardResponseBodies`) the body is null, as in k6: Volley did not keep it.
 */
export class K6Response {
  readonly status: number;
  readonly proto: string;
  readonly url: string;
  readonly error: string;
  readonly error_code: number;
  readonly request: { method: string; url: string };
  private text: string | null | undefined = undefined;
  private headerMap: Record<string, string> | null = null;
  private timed: Timings | null = null;

  constructor(
    method: string,
    url: string,
    private readonly answer: HttpResponse | null,
    error?: string,
    /** The request was made with `discardBody`: the answer's body was not kept. */
    private readonly discarded = false,
  ) {
    this.status = answer?.status ?? 0;
    // k6 spells HTTP/2 "HTTP/2.0".
    this.proto = answer?.proto === "HTTP/2" ? "HTTP/2.0" : (answer?.proto ?? "");
    this.url = url;
    this.error = error ?? "";
    this.error_code = error === undefined ? 0 : 1000;
    this.request = { method, url };
  }

  get body(): string | null {
    if (this.text === undefined) this.text = this.answer === null || this.discarded ? null : this.answer.body;
    return this.text;
  }

  get headers(): Record<string, string> {
    if (this.headerMap === null) {
      this.headerMap = {};
      for (const [name, value] of Object.entries(this.answer?.headers ?? {}))
        this.headerMap[canonical(name)] = String(value);
    }
    return this.headerMap;
  }

  get timings(): Timings {
    if (this.timed === null) {
      const t = this.answer?.timings;
      this.timed = {
        blocked: t?.blocked ?? 0,
        connecting: t?.connect ?? 0,
        tls_handshaking: t?.tls ?? 0,
        sending: t?.sending ?? 0,
        waiting: t?.waiting ?? 0,
        receiving: t?.receiving ?? 0,
        duration: t?.duration ?? 0,
      };
    }
    return this.timed;
  }

  /** The body as JSON, or the value at a dotted path (`"items.0.id"`, `"a.#"` for a length). */
  json(selector?: string): unknown {
    const { body } = this;
    if (body === null) throw new Error("the response has no body");
    let value: unknown = JSON.parse(body);
    if (selector === undefined) return value;
    for (const part of selector.split(".")) {
      if (part === "#" && Array.isArray(value)) return value.length;
      value =
        typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
    }
    return value;
  }

  html(): never {
    throw new Error("res.html() (k6's HTML parsing) is not available in Volley: read res.body");
  }

  get cookies(): Record<string, Array<{ name: string; value: string }>> {
    const jar: Record<string, Array<{ name: string; value: string }>> = {};
    for (const line of (this.headers["Set-Cookie"] ?? "").split("\n")) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      jar[name] = [...(jar[name] ?? []), { name, value: pair.slice(eq + 1).trim() }];
    }
    return jar;
  }

  /** What `JSON.stringify(res)` shows (a k6 script may log a response): the fields as k6 has them. */
  toJSON(): Record<string, unknown> {
    const { status, proto, url, error, error_code, request, body, headers, timings } = this;
    return { status, body, headers, timings, proto, url, error, error_code, request };
  }
}

function canonical(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}
