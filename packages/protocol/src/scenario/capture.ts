/**
 * Capture expressions: `json.a.b[0]` reads the JSON body, `header.x-id` a response header,
 * `regex:<pattern>` the first group (or whole match) of a regular expression over the body.
 */
export type CaptureSource =
  | { kind: "json"; path: Array<string | number> }
  | { kind: "header"; name: string }
  | { kind: "regex"; pattern: string };

export class CaptureSyntaxError extends Error {}

const JSON_SEGMENT_RE = /\.([^.[\]]+)|\[(\d+)\]/y;

export function parseCapture(expression: string): CaptureSource {
  if (expression === "json") return { kind: "json", path: [] };
  if (expression.startsWith("json.") || expression.startsWith("json[")) {
    return { kind: "json", path: parseJsonPath(expression.slice(4)) };
  }
  if (expression.startsWith("header.")) {
    const name = expression.slice("header.".length).trim().toLowerCase();
    if (!name) throw new CaptureSyntaxError(`"${expression}" names no header`);
    return { kind: "header", name };
  }
  if (expression.startsWith("regex:")) {
    const pattern = expression.slice("regex:".length);
    try {
      new RegExp(pattern);
    } catch (error) {
      throw new CaptureSyntaxError(
        `"${pattern}" is not a valid regular expression: ${(error as Error).message}`,
      );
    }
    return { kind: "regex", pattern };
  }
  throw new CaptureSyntaxError(
    `"${expression}" is not a capture: use json.path.to[0].field, header.name or regex:pattern`,
  );
}

function parseJsonPath(rest: string): Array<string | number> {
  const path: Array<string | number> = [];
  let position = 0;
  while (position < rest.length) {
    JSON_SEGMENT_RE.lastIndex = position;
    const match = JSON_SEGMENT_RE.exec(rest);
    if (!match)
      throw new CaptureSyntaxError(`"json${rest}" has an invalid path near "${rest.slice(position)}"`);
    path.push(match[1] !== undefined ? match[1] : Number(match[2]));
    position = JSON_SEGMENT_RE.lastIndex;
  }
  return path;
}
