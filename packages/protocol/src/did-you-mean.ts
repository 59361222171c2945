import { z } from "zod";

// "unknown field "exector"" is better said with the field that was meant: the fields an object
// at that path takes, read from the schema itself (so the suggestion cannot go stale).

type Def = Record<string, unknown> & { type?: string };
const defOf = (schema: unknown): Def | undefined =>
  (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The schemas a value at `path` may be checked by (wrappers, pipes and unions looked through). */
function schemasAt(schema: unknown, path: readonly PropertyKey[], seen = new Set<unknown>()): unknown[] {
  const def = defOf(schema);
  if (!def || seen.has(schema)) return [];
  seen.add(schema);
  const inner = (next: unknown) => schemasAt(next, path, seen);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return inner(def.innerType);
    case "pipe":
      // A preprocess's pipe checks with its `out`; a transform's, with its `in`.
      return [...inner(def.in), ...schemasAt(def.out, path, new Set(seen))];
    case "lazy":
      return inner((def.getter as () => unknown)());
    case "union":
      return (def.options as unknown[]).flatMap((option) => schemasAt(option, path, new Set(seen)));
    case "intersection":
      return [...inner(def.left), ...schemasAt(def.right, path, new Set(seen))];
  }
  if (path.length === 0) return [schema];
  const [head, ...rest] = path;
  if (def.type === "object") {
    const field = (def.shape as Record<string, unknown>)[String(head)];
    return field ? schemasAt(field, rest) : [];
  }
  if (def.type === "record") return schemasAt(def.valueType, rest);
  if (def.type === "array" && typeof head === "number") return schemasAt(def.element, rest);
  return [];
}

/** The fields the objects at `path` take. */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const fields = new Set<string>();
  for (const at of schemasAt(schema, path)) {
    const def = defOf(at);
    if (def?.type === "object") for (const key of Object.keys(def.shape as object)) fields.add(key);
  }
  return [...fields];
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return previous[b.length];
}

/** The known field closest to `key`, when it is close enough to be what was meant. */
export function closestField(key: string, fields: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const field of fields) {
    const distance = editDistance(key, field);
    if (distance < bestDistance) {
      best = field;
      bestDistance = distance;
    }
  }
  return best !== null && bestDistance <= Math.max(1, Math.min(3, Math.floor(key.length / 3))) ? best : null;
}

/** k6's option names (executors and scenarios) with what a Volley scenario says instead. */
const K6_FIELDS: Record<string, string> = {
  startVUs: 'k6\'s startVUs is "startVus" in Volley',
  maxVUs: 'k6\'s maxVUs is "maxVus" in Volley',
  preAllocatedVUs: 'k6\'s preAllocatedVUs: Volley starts VUs as the rate needs them, up to "maxVus"',
  gracefulRampDown:
    "k6's gracefulRampDown: Volley's VUs above a lowered target finish their iteration, then rest",
  exec: "k6's exec: each of scenarios: runs its own requests, flows or script (script: ./file.ts)",
  timeUnit: "k6's timeUnit: Volley's \"rate\" is per second (rate: 0.5 for 30 per minute)",
};

/** `unknown field "exector" (did you mean "executor"?)`: the keys, each with what was probably meant. */
export function unknownFieldsMessage(keys: readonly string[], fields: readonly string[]): string {
  const named = keys.map((key) => {
    if (Object.hasOwn(K6_FIELDS, key)) return `"${key}" (${K6_FIELDS[key]})`;
    const meant = closestField(key, fields);
    return meant ? `"${key}" (did you mean "${meant}"?)` : `"${key}"`;
  });
  return `unknown field${keys.length > 1 ? "s" : ""} ${named.join(", ")}`;
}

/**
 * `schema` (a union told apart by `key`) that says `unknown field "exector" (did you mean
 * "executor"?)` when the key is missing and a field close to it was given, instead of the union's
 * own "is required" on a field the user did write.
 */
export function withDiscriminatorHint<T extends z.ZodType>(
  key: string,
  schema: T,
): z.ZodType<z.output<T>, z.input<T>> {
  return z.preprocess((value, ctx) => {
    if (value === null || typeof value !== "object" || Array.isArray(value) || key in value) return value;
    const typo = Object.keys(value).find((field) => closestField(field, [key]) === key);
    if (typo === undefined) return value;
    ctx.addIssue({ code: "custom", path: [typo], message: unknownFieldsMessage([typo], [key]) });
    return z.NEVER;
  }, schema) as unknown as z.ZodType<z.output<T>, z.input<T>>;
}
