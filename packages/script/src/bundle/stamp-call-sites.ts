import type { SourceMapPayload } from "node:module";
import { decode, encode, type SourceMapMappings, type SourceMapSegment } from "@jridgewell/sourcemap-codec";
import { type CallExpression, type ChainExpression, type Expression, type Program, parse } from "acorn";
import { ancestor } from "acorn-walk";
import { HTTP_CALL_NAMES } from "../call-sites/index.js";

/** The name the bundle's banner gives the engine's stamp (see call-sites). */
export const STAMP_NAME = "__volleyAt";

const NAMES: ReadonlySet<string> = new Set(HTTP_CALL_NAMES);
const CLOSES = Number.MAX_SAFE_INTEGER;

/** Text put into the file at one offset. */
interface Insertion {
  offset: number;
  line: number;
  column: number;
  text: string;
  /**
   * Where the wrapped call ends: at one offset, insertions go in the order of this, largest
   * first. A closing ")" (CLOSES) ends a call before another starts; of two starts, the outer.
   */
  end: number;
}

/**
 * Wraps each call in one of the user's files that may be a `vu.http` call (by its name, see
 * HTTP_CALL_NAMES) as `__volleyAt("flow.ts:12", call)`, so the engine knows where a request was
 * made without capturing a stack. `code` is the file as JavaScript (esbuild's transform of it),
 * `map` maps it to the file as written, `file` is its path relative to the scenario's folder.
 * Only text is inserted, within lines: the map is kept true by moving each mapping's column past
 * what was inserted before it on its line, so errors still point at the user's line and column.
 */
export function stampCallSites(
  code: string,
  map: SourceMapPayload,
  file: string,
): { code: string; map: SourceMapPayload } {
  const lines = decode(map.mappings);
  const insertions: Insertion[] = [];
  const wrap = (node: CallExpression | ChainExpression, call: CallExpression): void => {
    const line = originalLine(lines, call.callee);
    if (line === null) return;
    const place = `${file}:${line}`;
    const start = node.loc?.start;
    const end = node.loc?.end;
    if (!start || !end) return;
    const prefix = `${STAMP_NAME}(${JSON.stringify(place)}, `;
    insertions.push({
      offset: node.start,
      line: start.line,
      column: start.column,
      text: prefix,
      end: node.end,
    });
    insertions.push({ offset: node.end, line: end.line, column: end.column, text: ")", end: CLOSES });
  };
  try {
    ancestor(parseEither(code), {
      CallExpression(node, _state, ancestors) {
        // Inside an optional chain, wrapping a part would break its short-circuit: only a chain
        // that is the call itself is wrapped (below); the rest are found by a stack capture.
        if (ancestors.some((a) => a.type === "ChainExpression")) return;
        if (callName(node) !== null) wrap(node, node);
      },
      ChainExpression(node) {
        const call = node.expression;
        if (call.type === "CallExpression" && callName(call) !== null) wrap(node, call);
      },
    });
  } catch {
    // Syntax newer than acorn's, or nesting deeper than its stack: left unstamped, the file's
    // calls are found by a stack capture as an alias's are.
    return { code, map };
  }
  if (insertions.length === 0) return { code, map };
  insertions.sort((a, b) => a.offset - b.offset || b.end - a.end);
  let out = "";
  let from = 0;
  for (const insertion of insertions) {
    out += code.slice(from, insertion.offset) + insertion.text;
    from = insertion.offset;
  }
  out += code.slice(from);
  return {
    code: out,
    map: { ...map, mappings: encode(shifted(lines, insertions)) },
  };
}

/** The file as an ES module, else as a CommonJS script (a `.cjs` helper may use what modules may not). */
function parseEither(code: string): Program {
  try {
    return parse(code, { ecmaVersion: "latest", sourceType: "module", locations: true });
  } catch {
    return parse(code, {
      ecmaVersion: "latest",
      sourceType: "script",
      allowReturnOutsideFunction: true,
      locations: true,
    });
  }
}

/** The method a call names (`x.get(...)`, `x["get"](...)`, `get(...)`), when it is one of vu.http's. */
function callName(call: CallExpression): string | null {
  const callee = call.callee;
  let name: string | null = null;
  if (callee.type === "Identifier") name = callee.name;
  else if (callee.type === "MemberExpression") {
    const property = callee.property;
    if (!callee.computed && property.type === "Identifier") name = property.name;
    else if (property.type === "Literal" && typeof property.value === "string") name = property.value;
  }
  return name !== null && NAMES.has(name) ? name : null;
}

/** The line (from 1) the method's name is on in the file as written, through the map. */
function originalLine(lines: SourceMapMappings, callee: CallExpression["callee"]): number | null {
  const named = callee.type === "MemberExpression" ? callee.property : (callee as Expression);
  const at = named.loc?.start;
  if (!at) return null;
  // The mapping that covers the name: the last one on its line that starts at or before it.
  let covering: SourceMapSegment | undefined;
  for (const segment of lines[at.line - 1] ?? []) {
    if (segment[0] > at.column) break;
    covering = segment;
  }
  return covering === undefined || covering.length < 4 ? null : (covering[2] as number) + 1;
}

/** Each mapping's generated column moved past the text inserted at or before it on its line. */
function shifted(decoded: SourceMapMappings, insertions: readonly Insertion[]): SourceMapMappings {
  const lines = [...decoded];
  const byLine = new Map<number, Insertion[]>();
  for (const insertion of insertions) {
    const line = insertion.line - 1; // acorn's lines start at 1, a map's at 0
    const list = byLine.get(line);
    if (list === undefined) byLine.set(line, [insertion]);
    else list.push(insertion);
  }
  for (const [line, list] of byLine) {
    const segments = lines[line];
    if (segments === undefined) continue;
    lines[line] = segments.map((segment): SourceMapSegment => {
      let shift = 0;
      for (const insertion of list) if (insertion.column <= segment[0]) shift += insertion.text.length;
      if (shift === 0) return segment;
      const moved = [...segment] as number[];
      moved[0] += shift;
      return moved as SourceMapSegment;
    });
  }
  return lines;
}
