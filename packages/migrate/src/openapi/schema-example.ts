import { field } from "../fields.js";

/**
 * A value that fits an OpenAPI schema (3.0 and 3.1): its example where it gives one, else one made
 * from its type, format and bounds. `$ref`s resolve within the document; a cycle ends in null.
 */
export class SchemaExamples {
  constructor(private readonly document: unknown) {}

  /** Follows `$ref` (a `#/...` pointer) until a value that is not one; undefined if it leads nowhere. */
  resolve(value: unknown, depth = 0): unknown {
    const ref = field(value, "$ref");
    if (typeof ref !== "string") return value;
    if (depth > 20 || !ref.startsWith("#/")) return undefined;
    let at: unknown = this.document;
    for (const part of ref.slice(2).split("/"))
      at = field(at, part.replaceAll("~1", "/").replaceAll("~0", "~"));
    return this.resolve(at, depth + 1);
  }

  /** The example of a parameter or a media type: `example`, the first of `examples`, else made from `schema`. */
  exampleOf(holder: unknown): unknown {
    const direct = field(holder, "example");
    if (direct !== undefined) return direct;
    const examples = field(holder, "examples");
    if (typeof examples === "object" && examples !== null) {
      const first = Object.values(examples)[0];
      const value = field(this.resolve(first), "value");
      if (value !== undefined) return value;
    }
    return this.make(field(holder, "schema"));
  }

  /** A value for `schema`. */
  make(schema: unknown, depth = 0, seen: ReadonlySet<unknown> = new Set()): unknown {
    const resolved = this.resolve(schema);
    if (typeof resolved !== "object" || resolved === null || depth > 12 || seen.has(resolved)) return null;
    const s = resolved as Record<string, unknown>;
    const inside = new Set([...seen, resolved]);
    if (s.example !== undefined) return s.example;
    if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
    if (s.const !== undefined) return s.const;
    if (s.default !== undefined) return s.default;
    if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
    if (Array.isArray(s.allOf)) {
      const parts = s.allOf.map((part) => this.make(part, depth + 1, inside));
      return parts.every((p) => typeof p === "object" && p !== null && !Array.isArray(p))
        ? Object.assign({}, ...parts)
        : (parts[0] ?? null);
    }
    const choice = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
    if (choice && choice.length > 0) return this.make(choice[0], depth + 1, inside);
    switch (typeOf(s)) {
      case "object": {
        const properties = field(s, "properties");
        const out: Record<string, unknown> = {};
        if (typeof properties === "object" && properties !== null) {
          for (const [name, property] of Object.entries(properties).slice(0, 100)) {
            const value = this.make(property, depth + 1, inside);
            if (value !== null || field(this.resolve(property), "nullable") === true) out[name] = value;
          }
        }
        return out;
      }
      case "array": {
        const item = this.make(s.items, depth + 1, inside);
        return item === null ? [] : [item];
      }
      case "integer":
        return Math.floor(numberIn(s));
      case "number":
        return numberIn(s);
      case "boolean":
        return true;
      case "string":
        return stringFor(s);
      default:
        return null;
    }
  }
}

function typeOf(schema: Record<string, unknown>): string | undefined {
  // 3.1 writes a list of types ("string", "null"): the first that is not null.
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (typeof type === "string") return type;
  if (schema.properties !== undefined) return "object";
  if (schema.items !== undefined) return "array";
  return undefined;
}

/** 1, or the nearest number the bounds allow. */
function numberIn(schema: Record<string, unknown>): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : Number.NEGATIVE_INFINITY;
  const max = typeof schema.maximum === "number" ? schema.maximum : Number.POSITIVE_INFINITY;
  return Math.min(Math.max(1, Math.ceil(min)), max);
}

const FORMATS: Record<string, string> = {
  "date-time": "2026-01-01T12:00:00Z",
  date: "2026-01-01",
  time: "12:00:00",
  email: "user@example.com",
  uuid: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  uri: "https://example.com/",
  url: "https://example.com/",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  byte: "ZXhhbXBsZQ==",
  password: "secret-password",
};

function stringFor(schema: Record<string, unknown>): string {
  const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined;
  if (format !== undefined) return format;
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Number.POSITIVE_INFINITY);
  let text = "string";
  while (text.length < min) text += "x";
  return text.slice(0, Math.max(min, Math.min(max, text.length)));
}
