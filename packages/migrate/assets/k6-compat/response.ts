import type { HttpResponse } from "@volley/script";

/** A k6 response over Volley's: canonical header names, `json(selector)`, k6's timing names. */
export class K6Response {
  readonly status: number;
  readonly body: string | null;
  readonly headers: Record<string, string>;
  readonly timings: Record<string, number>;
  readonly proto: string;
  readonly url: string;
  readonly error: string;
  readonly error_code: number;
  readonly request: { method: string; url: string };

  constructor(method: string, url: string, answer: HttpResponse | null, error?: string) {
    this.status = answer?.status ?? 0;
    this.body = answer?.body ?? null;
    this.headers = {};
    for (const [name, value] of Object.entries(answer?.headers ?? {}))
      this.headers[canonical(name)] = String(value);
    const t = answer?.timings;
    this.timings = {
      blocked: t?.blocked ?? 0,
      connecting: t?.connect ?? 0,
      tls_handshaking: t?.tls ?? 0,
      sending: t?.sending ?? 0,
      waiting: t?.waiting ?? 0,
      receiving: t?.receiving ?? 0,
      duration: t?.duration ?? 0,
    };
    // k6 spells HTTP/2 "HTTP/2.0".
    this.proto = answer?.proto === "HTTP/2" ? "HTTP/2.0" : (answer?.proto ?? "");
    this.url = url;
    this.error = error ?? "";
    this.error_code = error === undefined ? 0 : 1000;
    this.request = { method, url };
  }

  /** The body as JSON, or the value at a dotted path (`"items.0.id"`, `"a.#"` for a length). */
  json(selector?: string): unknown {
    if (this.body === null) throw new Error("the response has no body");
    let value: unknown = JSON.parse(this.body);
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
}

function canonical(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}
