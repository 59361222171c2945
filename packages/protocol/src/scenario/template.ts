/**
 * Template syntax shared by validation (which names are allowed) and the engine (which renders).
 * `{{vu}}`, `{{iter}}`, `{{worker}}`, `{{uuid}}`, `{{now}}`, `{{randomInt A B}}` and `{{captured}}`.
 */
export type TemplatePart =
  | { kind: "text"; text: string }
  | { kind: "builtin"; name: "vu" | "iter" | "worker" | "uuid" | "now" }
  | { kind: "randomInt"; min: number; max: number }
  | { kind: "variable"; name: string };

export const BUILTIN_VARIABLES = ["vu", "iter", "worker", "uuid", "now"] as const;
const BUILTINS = new Set<string>(BUILTIN_VARIABLES);
const TOKEN_RE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const VARIABLE_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RANDOM_INT_RE = /^randomInt\s+(-?\d+)\s+(-?\d+)$/;

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
  if (!VARIABLE_RE.test(token)) throw new TemplateSyntaxError(`"{{${token}}}" is not a variable name`);
  return { kind: "variable", name: token };
}

/** Names of captured variables a template reads. */
export function templateVariables(parts: TemplatePart[]): string[] {
  return parts.flatMap((part) => (part.kind === "variable" ? [part.name] : []));
}

export function isStaticTemplate(parts: TemplatePart[]): boolean {
  return parts.every((part) => part.kind === "text");
}
