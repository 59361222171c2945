/**
 * Template syntax shared by validation (which names are allowed) and the engine (which renders).
 * `{{vu}}`, `{{iter}}`, `{{worker}}`, `{{uuid}}`, `{{now}}`, `{{randomInt A B}}`,
 * `{{randomString N}}`, `{{randomItem a b c}}`, `{{data.FEEDER.FIELD}}`, `{{env.NAME}}` and
 * `{{captured}}`.
 */
export type TemplatePart =
  | { kind: "text"; text: string }
  | { kind: "builtin"; name: "vu" | "iter" | "worker" | "uuid" | "now" }
  | { kind: "randomInt"; min: number; max: number }
  | { kind: "randomString"; length: number }
  | { kind: "randomItem"; items: string[] }
  | { kind: "data"; feeder: string; field: string }
  | { kind: "env"; name: string }
  | { kind: "variable"; name: string };

/** Longest `{{randomString N}}`. */
export const MAX_RANDOM_STRING = 4096;

export const BUILTIN_VARIABLES = ["vu", "iter", "worker", "uuid", "now"] as const;
const BUILTINS = new Set<string>(BUILTIN_VARIABLES);
const TOKEN_RE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const VARIABLE_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RANDOM_INT_RE = /^randomInt\s+(-?\d+)\s+(-?\d+)$/;
const RANDOM_STRING_RE = /^randomString\s+(\d+)$/;
const DATA_RE = /^data\.([A-Za-z_][A-Za-z0-9_]*)\.([^\s.{}][^\s{}]*)$/;
const ENV_RE = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;

export class TemplateSyntaxError extends Error {}

/** Splits a template into parts; throws TemplateSyntaxError with a readable message. */
export function parseTemplate(source: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of source.matchAll(TOKEN_RE)) {
    const index = match.index ?? 0;
    if (index > last) parts.push({ kind: "text", text: source.slice(last, index) });
    parts.push(parseToken(match[1]));
    last = index + match[0].length;
  }
  const rest = source.slice(last);
  if (rest.includes("{{")) throw new TemplateSyntaxError(`unclosed "{{" in "${source}"`);
  if (rest) parts.push({ kind: "text", text: rest });
  return parts;
}

function parseToken(token: string): TemplatePart {
  if (BUILTINS.has(token)) return { kind: "builtin", name: token as (typeof BUILTIN_VARIABLES)[number] };
  const random = RANDOM_INT_RE.exec(token);
  if (random) {
    const min = Number(random[1]);
    const max = Number(random[2]);
    if (min > max)
      throw new TemplateSyntaxError(
        `{{randomInt ${min} ${max}}}: the first bound must not exceed the second`,
      );
    return { kind: "randomInt", min, max };
  }
  if (token.startsWith("randomInt")) {
    throw new TemplateSyntaxError(`"{{${token}}}" must be {{randomInt A B}} with two integers`);
  }
  const randomString = RANDOM_STRING_RE.exec(token);
  if (randomString) {
    const length = Number(randomString[1]);
    if (length < 1 || length > MAX_RANDOM_STRING) {
      throw new TemplateSyntaxError(`{{randomString N}}: N must be from 1 to ${MAX_RANDOM_STRING}`);
    }
    return { kind: "randomString", length };
  }
  if (token.startsWith("randomString")) {
    throw new TemplateSyntaxError(`"{{${token}}}" must be {{randomString N}} with a length`);
  }
  if (token === "randomItem" || token.startsWith("randomItem ")) {
    const items = token.slice("randomItem".length).trim().split(/\s+/).filter(Boolean);
    if (items.length === 0) throw new TemplateSyntaxError("{{randomItem a b c}} needs at least one item");
    return { kind: "randomItem", items };
  }
  if (token.startsWith("data.")) {
    const data = DATA_RE.exec(token);
    if (!data) throw new TemplateSyntaxError(`"{{${token}}}" must be {{data.FEEDER.FIELD}}`);
    return { kind: "data", feeder: data[1], field: data[2] };
  }
  if (token.startsWith("env.")) {
    const env = ENV_RE.exec(token);
    if (!env) throw new TemplateSyntaxError(`"{{${token}}}" must be {{env.NAME}}`);
    return { kind: "env", name: env[1] };
  }
  if (!VARIABLE_RE.test(token)) throw new TemplateSyntaxError(`"{{${token}}}" is not a variable name`);
  return { kind: "variable", name: token };
}

/** The feeder fields a template reads. */
export function templateDataFields(parts: TemplatePart[]): Array<{ feeder: string; field: string }> {
  return parts.flatMap((part) => (part.kind === "data" ? [{ feeder: part.feeder, field: part.field }] : []));
}

/** The environment variables a template reads. */
export function templateEnvNames(parts: TemplatePart[]): string[] {
  return parts.flatMap((part) => (part.kind === "env" ? [part.name] : []));
}

/** Names of captured variables a template reads. */
export function templateVariables(parts: TemplatePart[]): string[] {
  return parts.flatMap((part) => (part.kind === "variable" ? [part.name] : []));
}

export function isStaticTemplate(parts: TemplatePart[]): boolean {
  return parts.every((part) => part.kind === "text");
}
