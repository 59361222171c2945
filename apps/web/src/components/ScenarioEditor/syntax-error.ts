/** Where scenario text fails to parse, for a message with the line and a caret under the column. */
export interface SyntaxProblem {
  message: string;
  /** 1-based, when the parser said where. */
  line?: number;
  column?: number;
  /** The offending line and a caret line under its column. */
  snippet?: string;
}

/** Reads a YAML (`yaml` package) or JSON.parse error into a message and a snippet of `text`. */
export function describeSyntaxError(error: unknown, text: string): SyntaxProblem {
  const raw = error instanceof Error ? error.message : String(error);
  // The yaml package ends its first line with "at line L, column C:" and appends its own snippet.
  const message = raw
    .split("\n")[0]
    .replace(/\s*at line \d+, column \d+:?\s*$/, "")
    .replace(/:\s*$/, "");
  let line: number | undefined;
  let column: number | undefined;
  const linePos = (error as { linePos?: Array<{ line: number; col: number }> }).linePos;
  if (linePos?.[0]) {
    line = linePos[0].line;
    column = linePos[0].col;
  } else {
    const position = /position (\d+)/.exec(raw);
    const lineColumn = /line (\d+) column (\d+)/.exec(raw);
    if (lineColumn) {
      line = Number(lineColumn[1]);
      column = Number(lineColumn[2]);
    } else if (position) {
      const before = text.slice(0, Number(position[1]));
      line = before.split("\n").length;
      column = before.length - before.lastIndexOf("\n");
    }
  }
  if (line === undefined || column === undefined) return { message };
  const lines = text.split("\n");
  // A parser that ran out of text points past the last line: show the end of the last one instead.
  while (line > 1 && (lines[line - 1] ?? "").trim() === "") {
    line--;
    column = (lines[line - 1] ?? "").length + 1;
  }
  const source = lines[line - 1] ?? "";
  return {
    message,
    line,
    column,
    snippet: `${source}\n${" ".repeat(Math.max(0, column - 1))}^`,
  };
}
