import { type Node, parse } from "acorn";
import { ancestor } from "acorn-walk";
import MagicString from "magic-string";
import { field } from "../fields.js";
import { ImportError } from "../imported.js";
import { AsyncCalls } from "./k6-async.js";
import { K6_MODULES, unconvertibleModule, WAITING, WAITING_METHODS } from "./k6-modules.js";
import { NOT_STATIC, staticValue } from "./k6-static.js";

type AnyNode = Node & Record<string, unknown>;

/** A k6 script rewritten as a Volley script over the compat module, and what the rewrite found. */
export interface ConvertedScript {
  text: string;
  /** k6's `options`, read as data (undefined when the script has none). */
  options?: Record<string, unknown>;
  /** Functions the script exports (k6's `exec` targets). */
  exported: string[];
  /** Which of setup() and teardown() it exports. */
  hooks: string[];
  /** Whether it has k6's default function (a script of scenarios may run only `exec` ones). */
  hasDefault: boolean;
  /** The environment variables it reads (`__ENV.NAME`). */
  env: string[];
  /** Files it reads with open(), relative to the script. */
  files: string[];
  /** Custom metric names made Volley's: k6 name → Volley name. */
  renamed: Map<string, string>;
  notes: string[];
  /** What could not be converted, each also a comment at its place in the script. */
  unconvertible: string[];
}

/** Where the compat module is written beside a converted script, and how the script imports it. */
export const COMPAT_DIR = "k6-compat";
export const COMPAT_IMPORT = `./${COMPAT_DIR}/index.js`;

/** Parses the k6 script and rewrites it (see docs/migration.md, "k6"). */
export function convertK6Script(name: string, source: string): ConvertedScript {
  let ast: AnyNode;
  try {
    ast = parse(source, {
      ecmaVersion: "latest",
      sourceType: "module",
      locations: true,
    }) as unknown as AnyNode;
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    throw new ImportError(
      name,
      `not a JavaScript module: ${(error as Error).message.replace(/ \(\d+:\d+\)$/, "")}`,
      loc?.line,
    );
  }
  const out = new MagicString(source);
  const result: ConvertedScript = {
    text: "",
    exported: [],
    hooks: [],
    hasDefault: false,
    env: [],
    files: [],
    renamed: new Map(),
    notes: [],
    unconvertible: [],
  };
  const compat = new Set<string>(["k6Iteration"]);
  const aliases: string[] = [];
  /** Local names of k6's module objects with methods that wait (http, ws), and those methods. */
  const waitingObjects = new Map<string, ReadonlySet<string>>();
  const waiting = new Set<string>();
  const metricClasses = new Set<string>();
  let defaultName: string | undefined;
  const mustBeAsync = new Set<Node>();

  const leaveOut = (node: AnyNode, why: string) => {
    result.unconvertible.push(why);
    out.overwrite(node.start, node.end, `// volley convert: not converted: ${why}`);
  };

  for (const statement of ast.body as AnyNode[]) {
    if (statement.type === "ImportDeclaration") {
      const from = String((statement.source as AnyNode).value);
      const module = K6_MODULES[from];
      if (module === undefined) {
        const why = unconvertibleModule(from);
        if (why) leaveOut(statement, why);
        continue;
      }
      for (const spec of statement.specifiers as AnyNode[]) {
        const local = String((spec.local as AnyNode).name);
        if (spec.type === "ImportSpecifier") {
          const imported = String((spec.imported as AnyNode).name);
          if (module.named.has(imported)) {
            compat.add(imported === local ? imported : `${imported} as ${local}`);
            if (from === "k6" && WAITING.has(imported)) waiting.add(local);
            if (from === "k6/metrics") metricClasses.add(local);
          } else if (module.whole) {
            // `import { get } from "k6/http"`: a member of the module object.
            compat.add(`${module.whole} as __k6_${module.whole}`);
            aliases.push(`const ${local} = __k6_${module.whole}.${imported};`);
            if (WAITING_METHODS[module.whole]?.has(imported)) waiting.add(local);
          } else {
            result.unconvertible.push(`${from}'s ${imported}: not available in Volley`);
          }
        } else if (module.whole) {
          compat.add(module.whole === local ? module.whole : `${module.whole} as ${local}`);
          const methods = WAITING_METHODS[module.whole];
          if (methods) waitingObjects.set(local, methods);
        }
      }
      // With its line: the compat import at the top takes its place.
      out.remove(statement.start, source[statement.end] === "\n" ? statement.end + 1 : statement.end);
    } else if (statement.type === "ExportNamedDeclaration" && statement.declaration) {
      const declaration = statement.declaration as unknown as AnyNode;
      if (declaration.type === "VariableDeclaration") {
        const options = (declaration.declarations as AnyNode[]).find(
          (d) => (d.id as AnyNode).name === "options",
        );
        if (options) {
          const value = staticValue(options.init as Node);
          if (value !== NOT_STATIC && typeof value === "object" && value !== null)
            result.options = value as Record<string, unknown>;
          else
            result.notes.push("options are computed, not written as data: set the scenario's load by hand");
          out.overwrite(
            statement.start,
            statement.end,
            "// k6's options are in the scenario file (load, thresholds, http).",
          );
        }
      } else if (declaration.type === "FunctionDeclaration") {
        const fn = String((declaration.id as AnyNode).name);
        if (fn === "handleSummary") {
          result.unconvertible.push(
            "handleSummary: Volley writes its own report (--out, --html, --junit, --summary-md)",
          );
          out.prependRight(
            statement.start,
            "// volley convert: not converted: handleSummary is never called by Volley.\n",
          );
        } else if (fn === "setup" || fn === "teardown") {
          result.hooks.push(fn);
        } else {
          result.exported.push(fn);
        }
      }
    } else if (statement.type === "ExportDefaultDeclaration") {
      const declaration = statement.declaration as unknown as AnyNode;
      if (declaration.type === "FunctionDeclaration") {
        defaultName = declaration.id ? String((declaration.id as AnyNode).name) : "__k6Default";
        const paren = source.indexOf(
          "(",
          declaration.id ? (declaration.id as AnyNode).end : declaration.start,
        );
        out.overwrite(statement.start, paren, `async function ${defaultName}`);
        mustBeAsync.add(declaration);
      } else {
        defaultName = "__k6Default";
        out.overwrite(statement.start, declaration.start, "const __k6Default = ");
        if (declaration.type === "ArrowFunctionExpression" || declaration.type === "FunctionExpression")
          mustBeAsync.add(declaration);
      }
    }
  }
  if (defaultName === undefined && typeof field(result.options, "scenarios") !== "object")
    throw new ImportError(name, "has no default export: k6 runs `export default function`");
  result.hasDefault = defaultName !== undefined;

  const globals = rewriteGlobals(ast, out, result, metricClasses);
  for (const g of globals) compat.add(g);
  const calls = new AsyncCalls(ast, { waitingObjects, waiting, mustBeAsync });
  calls.rewrite(out, result.notes);
  if (calls.usesEach) compat.add("k6Each");

  // k6's maxRedirects, followed by the compat module's requests (k6 follows 10 by default), and
  // discardResponseBodies, which its requests pass on as discardBody (no copy of each body).
  const maxRedirects = result.options?.maxRedirects;
  const discardBodies = result.options?.discardResponseBodies === true;
  const defaults = [
    ...(typeof maxRedirects === "number" ? [`k6Defaults.maxRedirects = ${maxRedirects};`] : []),
    ...(discardBodies ? ["k6Defaults.discardResponseBodies = true;"] : []),
  ];
  if (defaults.length > 0) compat.add("k6Defaults");
  const header = [
    "// @ts-nocheck: converted from k6 by volley convert; its types are not checked (add them, then remove this line).",
    `import { ${[...compat].sort().join(", ")} } from "${COMPAT_IMPORT}";`,
    ...result.files.map(
      (file, i) => `import __k6Open${i} from ${JSON.stringify(file)} with { type: "text" };`,
    ),
    ...aliases,
    ...defaults,
  ].join("\n");
  out.prepend(`${header}\n`);
  if (defaultName !== undefined) out.append(`\nexport default k6Iteration(${defaultName});\n`);
  result.text = out.toString();
  return result;
}

/** `__VU`, `__ITER`, `__ENV.NAME`, `open("file")` and custom metric names; the compat names they need. */
function rewriteGlobals(
  ast: AnyNode,
  out: MagicString,
  result: ConvertedScript,
  metricClasses: ReadonlySet<string>,
): string[] {
  const used = new Set<string>();
  const env = new Set<string>();
  ancestor(ast, {
    Identifier(node, _state, ancestors) {
      const n = node as unknown as AnyNode;
      const parent = ancestors[ancestors.length - 2] as AnyNode | undefined;
      if (parent?.type === "MemberExpression" && parent.property === node && !parent.computed) return;
      if (parent?.type === "Property" && parent.key === node && !parent.computed) return;
      if (n.name === "__VU" || n.name === "__ITER") {
        used.add(String(n.name));
        out.appendLeft(n.end, "()");
      } else if (n.name === "__ENV") {
        used.add("__ENV");
        const property =
          parent?.type === "MemberExpression" && parent.object === node
            ? (parent.property as AnyNode)
            : undefined;
        const envName = property?.type === "Identifier" ? property.name : property?.value;
        if (typeof envName === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(envName)) env.add(envName);
      }
    },
    CallExpression(node) {
      const n = node as unknown as AnyNode;
      const callee = n.callee as AnyNode;
      const first = (n.arguments as AnyNode[])[0];
      if (callee.type === "MemberExpression" && (callee.property as AnyNode).name === "html") {
        result.unconvertible.push(
          `line ${n.loc?.start.line}: res.html() (k6's HTML parsing) throws in Volley: read res.body`,
        );
        return;
      }
      if (callee.type !== "Identifier" || callee.name !== "open") return;
      if (first?.type === "Literal" && typeof first.value === "string") {
        const file = first.value.startsWith(".") ? first.value : `./${first.value}`;
        if ((n.arguments as AnyNode[])[1] !== undefined)
          result.notes.push(`open(${JSON.stringify(first.value)}, "b") is read as text`);
        result.files.push(file);
        out.overwrite(n.start, n.end, `__k6Open${result.files.length - 1}`);
      } else {
        result.unconvertible.push("open() of a computed path: name the file in a string");
      }
    },
    NewExpression(node) {
      const n = node as unknown as AnyNode;
      const callee = n.callee as AnyNode;
      const first = (n.arguments as AnyNode[])[0];
      if (callee.type !== "Identifier" || !metricClasses.has(String(callee.name))) return;
      if (first?.type !== "Literal" || typeof first.value !== "string") {
        result.unconvertible.push("a custom metric with a computed name: name it in a string");
        return;
      }
      const volley = metricName(first.value);
      if (volley !== first.value) {
        result.renamed.set(first.value, volley);
        result.notes.push(`metric "${first.value}" is "${volley}" in Volley (names are [a-z][a-z0-9_]*)`);
        out.overwrite(first.start, first.end, JSON.stringify(volley));
      }
    },
  });
  result.env = [...env];
  return [...used];
}

/** A k6 metric name as Volley spells one: lower case, `_` for anything else, starting with a letter. */
export function metricName(name: string): string {
  let out = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!/^[a-z]/.test(out)) out = `m_${out}`;
  return out.slice(0, 64);
}
