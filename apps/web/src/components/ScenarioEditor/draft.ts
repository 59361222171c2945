/** The scenario being edited, as plain JSON; edited in place through paths. */
export type Draft = Record<string, unknown>;

export const DEFAULT_DRAFT: Draft = {
  name: "my-test",
  target: "http://127.0.0.1:18080",
  load: { executor: "constant-vus", vus: 10, duration: "30s" },
  requests: [{ name: "home", method: "GET", path: "/" }],
  thresholds: { p95: "<500ms", errorRate: "<1%" },
};

/** Returns a copy of `draft` with `value` at `path` (undefined removes the key). */
export function setAt(draft: Draft, path: Array<string | number>, value: unknown): Draft {
  const copy = structuredClone(draft);
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    if (node[key] === undefined || node[key] === null || typeof node[key] !== "object") node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (value === undefined || value === "") {
    if (Array.isArray(node) && typeof last === "number") node.splice(last, 1);
    else delete node[last];
  } else {
    node[last] = value;
  }
  return copy;
}

export function getAt(draft: unknown, path: Array<string | number>): unknown {
  let node = draft;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** "key: value" lines ↔ a record (headers, captures, thresholds). */
export function linesToRecord(text: string): Record<string, string> | undefined {
  const entries = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf(":");
      return at < 0 ? [line, ""] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    });
  return entries.length ? Object.fromEntries(entries) : undefined;
}

export function recordToLines(record: unknown): string {
  if (!record || typeof record !== "object") return "";
  return Object.entries(record as Record<string, unknown>)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join("\n");
}

/** A number field's text as a number when it is one, else the text (so validation can name it). */
export function numberOrText(text: string): number | string | undefined {
  if (text.trim() === "") return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : text;
}

/** A plain object (not null, not an array): the parts of a draft that are records. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
