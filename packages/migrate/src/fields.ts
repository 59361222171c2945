/** Reading untrusted parsed JSON or YAML without trusting its shape: a missing or wrong-typed part reads as undefined. */
export function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The value if it is a list, else an empty one. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The value if it is a string. */
export function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
