/**
 * Template syntax shared by validation (which names are allowed) and the engine (which renders).
 * `{{vu}}`, `{{iter}}`, `{{worker}}`, `{{uuid}}`, `{{now}}`, `{{repeat}}`, `{{randomInt A B}}`,
 * `{{randomString N}}`, `{{randomItem a b c}}`, `{{data.FEEDER.FIELD}}`, `{{env.NAME}}`,
 * `{{base64 ...}}` and `{{captured}}`.
 */
export type TemplatePart =
  | { kind: "text"; text: string }
  | { kind: "builtin"; name: BuiltinVariable }
  | { kind: "randomInt"; min: number; max: number }
  | { kind: "randomString"; length: number }
  | { kind: "randomItem"; items: string[] }
  | { kind: "data"; feeder: string; field: string }
  | { kind: "env"; name: string }
  | { kind: "variable"; name: string }
  /**
   * `{{base64 data.users.user ":" data.users.password}}`: the values and quoted texts, joined, in
   * base64 (Basic authentication, tokens). `source` is them as a template; `parts` its parts.
   */
  | { kind: "base64"; source: string; parts: TemplatePart[] };

/** Longest `{{randomString N}}`. */
export const MAX_RANDOM_STRING = 4096;
/** Longest template source (a body may be a template; nothing a scenario sends is larger). */
export const MAX_TEMPLATE_LENGTH = 1024 * 1024;
/** Most `{{...}}` tokens in one template. */
export const MAX_TEMPLATE_TOKENS = 10_000;

/** `repeat`: the turn of the innermost `repeat` the request is in (from 0; 0 outside any). */
export const BUILTIN_VARIABLES = ["vu", "iter", "worker", "uuid", "now", "repeat"] as const;
export type BuiltinVariable = (typeof BUILTIN_VARIABLES)[number];
const BUILTINS = new Set<string>(BUILTIN_VARIABLES);
const VARIABLE_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RANDOM_INT_RE = /^randomInt\s+(-?\d+)\s+(-?\d+)$/;
const RANDOM_STRING_RE = /^randomString\s+(\d+)$/;
const DATA_RE = /^data\.([A-Za-z_][A-Za-z0-9_]*)\.([^\s.{}][^\s{}]*)$/;
const ENV_RE = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;

export class TemplateSyntaxError extends Error {}

/**
 * Splits a template into parts; throws TemplateSyntaxError with a readable message.
 * A hand-written scan, linear in the source: a token is `{{`, then text without braces, then `}}`
 * (the regular expression it replaces backtracked cubically on `{{` and a long run of spaces).
 */
export function parseTemplate(source: string): TemplatePart[] {
  if (source.length > MAX_TEMPLATE_LENGTH) {
    throw new TemplateSyntaxError(`a template is longer than ${MAX_TEMPLATE_LENGTH} characters`);
  }
  const parts: TemplatePart[] = [];
  let last = 0;
  let tokens = 0;
  let open = source.indexOf("{{");
  while (open >= 0) {
    const close = nextBrace(source, open + 2);
    if (close < 0 || source.charCodeAt(close) !== CLOSE || source.charCodeAt(close + 1) !== CLOSE) {
      // No `}}` before the next brace: this `{{` opens nothing; the next one may.
      open = source.indexOf("{{", open + 1);
      continue;
    }
    if (open > last) parts.push({ kind: "text", text: source.slice(last, open) });
    parts.push(parseToken(source.slice(open + 2, close).trim()));
    if (++tokens > MAX_TEMPLATE_TOKENS) {
      throw new TemplateSyntaxError(`a template holds more than ${MAX_TEMPLATE_TOKENS} {{...}} tokens`);
    }
    last = close + 2;
    open = source.indexOf("{{", last);
  }
  const rest = source.slice(last);
  if (rest.includes("{{")) throw new TemplateSyntaxError(`unclosed "{{" in "${excerpt(source)}"`);
  if (rest) parts.push({ kind: "text", text: rest });
  return parts;
}

const OPEN = 0x7b;
const CLOSE = 0x7d;

/** Index of the first `{` or `}` at or after `from`, or -1. */
function nextBrace(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === OPEN || c === CLOSE) return i;
  }
  return -1;
}

/** A source short enough to quote in a message. */
function excerpt(source: string): string {
  return source.length <= 120 ? source : `${source.slice(0, 100)}... (${source.length} characters)`;
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
    throw new TemplateSyntaxError(`"{{${excerpt(token)}}}" must be {{randomInt A B}} with two integers`);
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
    throw new TemplateSyntaxError(`"{{${excerpt(token)}}}" must be {{randomString N}} with a length`);
  }
  if (token === "randomItem" || token.startsWith("randomItem ")) {
    const items = token.slice("randomItem".length).trim().split(/\s+/).filter(Boolean);
    if (items.length === 0) throw new TemplateSyntaxError("{{randomItem a b c}} needs at least one item");
    return { kind: "randomItem", items };
  }
  if (token === "base64" || token.startsWith("base64 ")) {
    const args = [...token.slice("base64".length).matchAll(/"([^"]*)"|(\S+)/g)];
    if (args.length === 0) {
      throw new TemplateSyntaxError(
        '{{base64 ...}} needs what to encode: values (data.F.field, env.NAME, a capture) or "text"',
      );
    }
    // Quoted texts stay text; anything else is a token of its own (validated as one).
    const source = args.map(([, text, name]) => (text !== undefined ? text : `{{${name}}}`)).join("");
    const parts = parseTemplate(source);
    if (parts.some((part) => part.kind === "base64"))
      throw new TemplateSyntaxError("{{base64 ...}} cannot hold another");
    return { kind: "base64", source, parts };
  }
  if (token.startsWith("data.")) {
    const data = DATA_RE.exec(token);
    if (!data) throw new TemplateSyntaxError(`"{{${excerpt(token)}}}" must be {{data.FEEDER.FIELD}}`);
    return { kind: "data", feeder: data[1], field: data[2] };
  }
  if (token.startsWith("env.")) {
    const env = ENV_RE.exec(token);
    if (!env) throw new TemplateSyntaxError(`"{{${excerpt(token)}}}" must be {{env.NAME}}`);
    return { kind: "env", name: env[1] };
  }
  if (!VARIABLE_RE.test(token))
    throw new TemplateSyntaxError(`"{{${excerpt(token)}}}" is not a variable name`);
  return { kind: "variable", name: token };
}

/** Every part of a template, those inside `{{base64 ...}}` included. */
function allParts(parts: TemplatePart[]): TemplatePart[] {
  return parts.flatMap((part) => (part.kind === "base64" ? [part, ...part.parts] : [part]));
}

/** The feeder fields a template reads. */
export function templateDataFields(parts: TemplatePart[]): Array<{ feeder: string; field: string }> {
  return allParts(parts).flatMap((part) =>
    part.kind === "data" ? [{ feeder: part.feeder, field: part.field }] : [],
  );
}

/** The environment variables a template reads. */
export function templateEnvNames(parts: TemplatePart[]): string[] {
  return allParts(parts).flatMap((part) => (part.kind === "env" ? [part.name] : []));
}

/** Names of captured variables a template reads. */
export function templateVariables(parts: TemplatePart[]): string[] {
  return allParts(parts).flatMap((part) => (part.kind === "variable" ? [part.name] : []));
}

export function isStaticTemplate(parts: TemplatePart[]): boolean {
  return parts.every((part) => part.kind === "text");
}
