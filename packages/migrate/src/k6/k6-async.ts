import type { Node } from "acorn";
import { ancestor } from "acorn-walk";
import type MagicString from "magic-string";

type AnyNode = Node & Record<string, unknown>;
type FunctionNode = AnyNode;

const FUNCTION_TYPES = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

interface Call {
  node: AnyNode;
  /** The function the call is in (null at the top level). */
  within: FunctionNode | null;
}

/**
 * k6's requests, sleeps and groups return at once; Volley's are promises. Every function that
 * calls one, or calls such a function (found by name, to a fixed point), becomes async, and each
 * of those calls is awaited. `list.forEach(fn)` with an async `fn` becomes a sequential loop
 * (`k6Each`), as k6 ran it.
 */
export class AsyncCalls {
  private readonly calls: Call[] = [];
  private readonly namedFunctions = new Map<string, FunctionNode[]>();
  private readonly asyncFunctions = new Set<Node>();
  private readonly asyncNames = new Set<string>();
  private readonly parents = new Map<Node, AnyNode>();
  usesEach = false;

  constructor(
    ast: AnyNode,
    private readonly k6: {
      waitingObjects: ReadonlyMap<string, ReadonlySet<string>>;
      waiting: ReadonlySet<string>;
      mustBeAsync: ReadonlySet<Node>;
    },
  ) {
    const visit = (node: Node, _state: unknown, ancestors: Node[]) => {
      const n = node as AnyNode;
      const parent = ancestors[ancestors.length - 2] as AnyNode | undefined;
      if (parent) this.parents.set(node, parent);
      if (FUNCTION_TYPES.has(n.type)) {
        const name = functionName(n, parent);
        if (name) this.namedFunctions.set(name, [...(this.namedFunctions.get(name) ?? []), n]);
        return;
      }
      const within = [...ancestors].reverse().find((a, i) => i > 0 && FUNCTION_TYPES.has(a.type)) as
        | FunctionNode
        | undefined;
      this.calls.push({ node: n, within: within ?? null });
    };
    ancestor(ast, {
      CallExpression: visit,
      FunctionDeclaration: visit,
      FunctionExpression: visit,
      ArrowFunctionExpression: visit,
    });
    for (const fn of k6.mustBeAsync) this.asyncFunctions.add(fn);
    this.settle();
  }

  private settle(): void {
    let changed = true;
    while (changed) {
      changed = false;
      for (const call of this.calls) {
        if (!this.isAsync(call.node) || call.within === null || this.asyncFunctions.has(call.within))
          continue;
        this.asyncFunctions.add(call.within);
        const name = functionName(call.within, this.parents.get(call.within));
        if (name) this.asyncNames.add(name);
        changed = true;
      }
      // A function named by an async one's name becomes async too (every declaration of it).
      for (const name of this.asyncNames) {
        for (const fn of this.namedFunctions.get(name) ?? []) {
          if (!this.asyncFunctions.has(fn)) {
            this.asyncFunctions.add(fn);
            changed = true;
          }
        }
      }
    }
  }

  private isAsync(call: AnyNode): boolean {
    const callee = call.callee as AnyNode;
    if (callee.type === "Identifier") {
      const name = String(callee.name);
      return this.k6.waiting.has(name) || this.asyncNames.has(name);
    }
    if (callee.type !== "MemberExpression") return false;
    const object = callee.object as AnyNode;
    const property = String((callee.property as AnyNode).name ?? "");
    const methods =
      object.type === "Identifier" ? this.k6.waitingObjects.get(String(object.name)) : undefined;
    if (methods) return methods.has(property);
    return property === "forEach" && this.hasAsyncCallback(call);
  }

  /** Whether `list.forEach(callback)`'s callback is async. */
  private hasAsyncCallback(call: AnyNode): boolean {
    const first = (call.arguments as AnyNode[])[0];
    if (first === undefined) return false;
    if (FUNCTION_TYPES.has(first.type)) return this.asyncFunctions.has(first);
    return first.type === "Identifier" && this.asyncNames.has(String(first.name));
  }

  /** Writes `async` and `await` where they go; a top-level call that waits is named in `notes`. */
  rewrite(out: MagicString, notes: string[]): void {
    for (const fn of this.asyncFunctions) {
      if ((fn as AnyNode).async || this.k6.mustBeAsync.has(fn)) continue;
      const parent = this.parents.get(fn);
      // A method's function starts at its parameters: `async` goes before its name.
      const key =
        (parent?.type === "Property" && parent.method) || parent?.type === "MethodDefinition"
          ? (parent.key as AnyNode)
          : undefined;
      out.prependRight(key ? key.start : fn.start, "async ");
    }
    // Innermost first: an outer call's "(await " then lands outside an inner one's at the same place.
    const waiting = this.calls
      .filter((c) => this.isAsync(c.node))
      .sort((a, b) => a.node.end - a.node.start - (b.node.end - b.node.start));
    for (const { node, within } of waiting) {
      if (within === null) {
        notes.push(
          `line ${node.loc?.start.line}: a request or sleep at the top level (k6's init code) is not awaited`,
        );
        continue;
      }
      const callee = node.callee as AnyNode;
      if (callee.type === "MemberExpression" && String((callee.property as AnyNode).name) === "forEach") {
        this.usesEach = true;
        const list = callee.object as AnyNode;
        const first = (node.arguments as AnyNode[])[0];
        out.prependRight(node.start, "(await k6Each(");
        out.overwrite(list.end, first.start, ", ");
        out.appendLeft(node.end, ")");
      } else {
        out.prependRight(node.start, "(await ");
        out.appendLeft(node.end, ")");
      }
    }
  }
}

/** The name a function is called by: its own, or the variable or property it is assigned to. */
function functionName(fn: AnyNode, parent: AnyNode | undefined): string | undefined {
  if (fn.id) return String((fn.id as AnyNode).name);
  if (parent?.type === "VariableDeclarator" && (parent.id as AnyNode).type === "Identifier")
    return String((parent.id as AnyNode).name);
  return undefined;
}
