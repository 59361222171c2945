import { randomUUID } from "node:crypto";
import { isStaticTemplate, parseTemplate, type TemplatePart } from "@volley/protocol";

/** What a template can read while a VU renders it. */
export interface TemplateContext {
  vu: number;
  iter: number;
  worker: string;
  vars: Record<string, string>;
}

/**
 * A template parsed once per run. Rendering walks a short array of parts; a template without
 * variables renders to its fixed text without work.
 */
export class CompiledTemplate {
  readonly isStatic: boolean;
  private readonly parts: TemplatePart[];
  private readonly fixed: string;

  /** `jsonString`: values land inside a JSON string literal and are escaped for it. */
  constructor(
    source: string,
    private readonly jsonString = false,
  ) {
    this.parts = parseTemplate(source);
    this.isStatic = isStaticTemplate(this.parts);
    this.fixed = this.isStatic ? source : "";
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
        case "variable":
          out += this.escape(ctx.vars[part.name] ?? "");
          break;
      }
    }
    return out;
  }

  private escape(value: string): string {
    return this.jsonString ? JSON.stringify(value).slice(1, -1) : value;
  }
}

function builtin(name: "vu" | "iter" | "worker" | "uuid" | "now", ctx: TemplateContext): string {
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
  }
}
