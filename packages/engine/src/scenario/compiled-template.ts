import { randomUUID } from "node:crypto";
import { type BuiltinVariable, parseTemplate, type TemplatePart } from "@volley/protocol";

/** What a template can read while a VU renders it. */
export interface TemplateContext {
  vu: number;
  iter: number;
  worker: string;
  vars: Record<string, string>;
  /** This iteration's row of each feeder, by the feeder's index. */
  rows: Array<string[] | null>;
  /** The turn of the innermost `repeat` the request being rendered is in (0 outside any). */
  repeat?: number;
}

/** What is fixed for a whole run when its templates are compiled. */
export interface TemplateEnvironment {
  env: Record<string, string>;
  /** [feeder index, column index] of `{{data.feeder.field}}`. */
  locate(feeder: string, field: string): [number, number];
}

/** How rendered values are escaped: as they are, inside a JSON string, or URL-encoded (forms). */
export type TemplateEscape = "none" | "json" | "url";

type CompiledPart =
  | Exclude<TemplatePart, { kind: "data" } | { kind: "env" } | { kind: "base64" }>
  | { kind: "row"; feeder: number; column: number }
  | { kind: "base64"; inner: CompiledTemplate };

const NO_ENVIRONMENT: TemplateEnvironment = {
  env: {},
  locate: (feeder, field) => {
    throw new Error(`{{data.${feeder}.${field}}} has no data`);
  },
};

const STATIC: TemplateContext = { vu: 0, iter: 0, worker: "", vars: {}, rows: [] };

const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/**
 * A template parsed once per run. Rendering walks a short array of parts; a template without
 * variables renders to its fixed text without work. `{{env.NAME}}` is fixed text by then.
 */
export class CompiledTemplate {
  readonly isStatic: boolean;
  private readonly parts: CompiledPart[];
  private readonly fixed: string;

  constructor(
    source: string,
    private readonly escaping: TemplateEscape | boolean = "none",
    environment: TemplateEnvironment = NO_ENVIRONMENT,
  ) {
    if (escaping === true) this.escaping = "json";
    if (escaping === false) this.escaping = "none";
    this.parts = [];
    for (const part of parseTemplate(source)) {
      if (part.kind === "env") {
        this.pushText(this.escape(environment.env[part.name] ?? ""));
      } else if (part.kind === "data") {
        const [feeder, column] = environment.locate(part.feeder, part.field);
        this.parts.push({ kind: "row", feeder, column });
      } else if (part.kind === "text") {
        this.pushText(part.text);
      } else if (part.kind === "base64") {
        const inner = new CompiledTemplate(part.source, "none", environment);
        // Fixed inside (text and env values only): encoded once, here.
        if (inner.isStatic)
          this.pushText(this.escape(Buffer.from(inner.render(STATIC), "utf8").toString("base64")));
        else this.parts.push({ kind: "base64", inner });
      } else {
        this.parts.push(part);
      }
    }
    this.isStatic = this.parts.every((part) => part.kind === "text");
    this.fixed = this.isStatic ? this.parts.map((p) => (p.kind === "text" ? p.text : "")).join("") : "";
  }

  render(ctx: TemplateContext): string {
    if (this.isStatic) return this.fixed;
    let out = "";
    for (const part of this.parts) {
      switch (part.kind) {
        case "text":
          out += part.text;
          break;
        case "builtin":
          out += this.escape(builtin(part.name, ctx));
          break;
        case "randomInt":
          out += String(part.min + Math.floor(Math.random() * (part.max - part.min + 1)));
          break;
        case "randomString":
          out += randomString(part.length);
          break;
        case "randomItem":
          out += this.escape(part.items[Math.floor(Math.random() * part.items.length)]);
          break;
        case "row":
          out += this.escape(ctx.rows[part.feeder]?.[part.column] ?? "");
          break;
        case "variable":
          out += this.escape(ctx.vars[part.name] ?? "");
          break;
        case "base64":
          out += this.escape(Buffer.from(part.inner.render(ctx), "utf8").toString("base64"));
          break;
      }
    }
    return out;
  }

  private pushText(text: string): void {
    const last = this.parts[this.parts.length - 1];
    if (last?.kind === "text") last.text += text;
    else this.parts.push({ kind: "text", text });
  }

  private escape(value: string): string {
    if (this.escaping === "json") return JSON.stringify(value).slice(1, -1);
    if (this.escaping === "url") return encodeURIComponent(value);
    return value;
  }
}

/** Characters drawn from one Math.random: 62^5 < 2^30 of its 52 random bits. */
const CHARS_PER_DRAW = 5;
const DRAW_RANGE = ALPHANUMERIC.length ** CHARS_PER_DRAW;

/**
 * Test data, not secrets: Math.random is several times cheaper than crypto on the request path,
 * and one draw gives five characters (its digits in base 62), not one.
 */
function randomString(length: number): string {
  let out = "";
  let draw = 0;
  for (let i = 0; i < length; i++) {
    if (i % CHARS_PER_DRAW === 0) draw = Math.floor(Math.random() * DRAW_RANGE);
    out += ALPHANUMERIC[draw % ALPHANUMERIC.length];
    draw = Math.floor(draw / ALPHANUMERIC.length);
  }
  return out;
}

function builtin(name: BuiltinVariable, ctx: TemplateContext): string {
  switch (name) {
    case "vu":
      return String(ctx.vu);
    case "iter":
      return String(ctx.iter);
    case "worker":
      return ctx.worker;
    case "uuid":
      return randomUUID();
    case "now":
      return String(Date.now());
    case "repeat":
      return String(ctx.repeat ?? 0);
  }
}
