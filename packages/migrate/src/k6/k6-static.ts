import type { Node } from "acorn";

/** A value written as a literal in the script (options are data), or NOT_STATIC for code. */
export const NOT_STATIC = Symbol("not static");

type AnyNode = Node & Record<string, unknown>;

/**
 * Reads an expression of object, array, string, number, boolean and null literals (and template
 * strings without expressions, negative numbers); `__ENV.X || "default"` reads as its default.
 * Anything else is NOT_STATIC where it stands.
 */
export function staticValue(node: Node | null | undefined): unknown {
  if (!node) return NOT_STATIC;
  const n = node as AnyNode;
  switch (n.type) {
    case "Literal":
      return n.regex ? NOT_STATIC : n.value;
    case "TemplateLiteral": {
      const quasis = n.quasis as Array<{ value: { cooked: string } }>;
      return (n.expressions as Node[]).length === 0 ? quasis[0].value.cooked : NOT_STATIC;
    }
    case "UnaryExpression": {
      const value = staticValue(n.argument as Node);
      return n.operator === "-" && typeof value === "number" ? -value : NOT_STATIC;
    }
    case "LogicalExpression":
      // `__ENV.VUS || 10`: the fallback is what runs when nothing is set.
      return n.operator === "||" || n.operator === "??" ? staticValue(n.right as Node) : NOT_STATIC;
    case "ArrayExpression":
      return (n.elements as Array<Node | null>).map((element) => staticValue(element));
    case "ObjectExpression": {
      const out: Record<string, unknown> = {};
      for (const property of n.properties as AnyNode[]) {
        if (property.type !== "Property" || property.computed) continue;
        const key = property.key as AnyNode;
        const name = key.type === "Identifier" ? String(key.name) : String(key.value);
        out[name] = staticValue(property.value as Node);
      }
      return out;
    }
    default:
      return NOT_STATIC;
  }
}

/** The paths (`options.scenarios.browse.rate`) that are code, not data: the converter names them. */
export function codePaths(value: unknown, path: string): string[] {
  if (value === NOT_STATIC) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => codePaths(v, `${path}[${i}]`));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => codePaths(v, `${path}.${k}`));
  return [];
}
