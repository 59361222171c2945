import { z } from "zod";

/** Largest feeder file (and largest total of a run's feeder files). */
export const MAX_DATA_BYTES = 50 * 1024 * 1024;
/** Most feeders a run declares. */
export const MAX_FEEDERS = 20;
/** Most rows a feeder holds. */
export const MAX_DATA_ROWS = 5_000_000;
/** Most columns a feeder has (inline rows: distinct keys over all rows). */
export const MAX_DATA_COLUMNS = 200;

const FEEDER_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A feeder's name: a plain identifier (templates read it as `data.NAME.FIELD`). */
export const feederNameSchema = z
  .string()
  .max(200)
  .regex(FEEDER_NAME_RE, { error: "a feeder name must be a plain identifier" });
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A feeder as a scenario declares it: a file (CSV with a header line, or a JSON array) or rows. */
export const feederSchema = z
  .strictObject({
    /** Path of a .csv or .json file, relative to the scenario file. */
    file: z
      .string()
      .min(1)
      .max(500)
      .refine((f) => /\.(csv|json)$/i.test(f), { error: "a feeder file must end in .csv or .json" })
      .optional(),
    rows: z
      .array(z.record(z.string().max(200), cell))
      .min(1)
      .max(10_000)
      .refine((rows) => rowColumns(rows) !== null, {
        error: `the rows have more than ${MAX_DATA_COLUMNS} distinct fields`,
      })
      .optional(),
    /** A CSV file without a header line: its columns, named here (every line is then a row). */
    columns: z
      .array(
        z
          .string()
          .trim()
          .min(1)
          .max(200)
          .regex(/^[^\s.{}]+$/, { error: "a column name is one word" }),
      )
      .min(1)
      .max(MAX_DATA_COLUMNS)
      .refine((names) => new Set(names).size === names.length, { error: "a column is named twice" })
      .optional(),
    /** `unique`: each row to one iteration fleet-wide; `sequential`: each VU walks the rows; `random`. */
    mode: z.enum(["unique", "sequential", "random"]).default("sequential"),
    /** `unique` only: when the rows run out, `stop` ends the iterations, `recycle` starts over. */
    onExhausted: z.enum(["stop", "recycle"]).default("stop"),
  })
  .superRefine((feeder, ctx) => {
    if ((feeder.file === undefined) === (feeder.rows === undefined)) {
      ctx.addIssue({ code: "custom", message: "a feeder needs either file or rows, not both" });
    }
    if (feeder.columns !== undefined && !/\.csv$/i.test(feeder.file ?? "")) {
      ctx.addIssue({
        code: "custom",
        path: ["columns"],
        message: "columns name a CSV file's columns: give a .csv file",
      });
    }
  });

export const dataSchema = z
  .record(feederNameSchema, feederSchema)
  .refine((data) => Object.keys(data).length <= MAX_FEEDERS, { error: `at most ${MAX_FEEDERS} feeders` });

export type FeederConfig = z.output<typeof feederSchema>;

/** A feeder's rows as shipped to workers: column names, then each row's values as text. */
export interface FeederTable {
  columns: string[];
  rows: string[][];
}

export const feederTableSchema = z.strictObject({
  columns: z.array(z.string().max(200)).min(1).max(MAX_DATA_COLUMNS),
  rows: z.array(z.array(z.string())).max(MAX_DATA_ROWS),
});

/** A feeder file that cannot be read as rows: names the file and, for CSV, the line. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

/**
 * Every field any row has, in first-seen order; null past MAX_DATA_COLUMNS (found in one pass:
 * rows of one distinct key each must not cost keys x keys, nor a table of rows x keys cells).
 */
function rowColumns(rows: Array<Record<string, unknown>>): string[] | null {
  const columns = new Set<string>();
  for (const row of rows) {
    for (const key in row) {
      if (!Object.hasOwn(row, key) || columns.has(key)) continue;
      if (columns.size === MAX_DATA_COLUMNS) return null;
      columns.add(key);
    }
  }
  return [...columns];
}

/** Inline rows as a table (columns: every field any row has, in first-seen order). */
export function tableFromRows(rows: Array<Record<string, unknown>>, file = "rows"): FeederTable {
  const columns = rowColumns(rows);
  if (columns === null) throw new DataFileError(file, `has more than ${MAX_DATA_COLUMNS} distinct fields`);
  return { columns, rows: rows.map((row) => columns.map((c) => cellText(row[c]))) };
}

/** A feeder file's text as a table: CSV (RFC 4180, header line, optional BOM) or a JSON array of objects. */
export function parseDataFile(file: string, text: string, columns?: readonly string[]): FeederTable {
  if (overDataLimit(text)) {
    throw new DataFileError(file, `is larger than ${MAX_DATA_BYTES / 1024 / 1024} MiB`);
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const table = /\.json$/i.test(file) ? parseJson(file, body) : parseCsv(file, body, columns);
  if (table.rows.length === 0) throw new DataFileError(file, "has no rows");
  if (table.rows.length > MAX_DATA_ROWS) throw new DataFileError(file, `has more than ${MAX_DATA_ROWS} rows`);
  return table;
}

function parseJson(file: string, text: string): FeederTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DataFileError(file, `is not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) throw new DataFileError(file, "must be a JSON array of objects");
  value.forEach((row, index) => {
    if (row === null || typeof row !== "object" || Array.isArray(row)) {
      throw new DataFileError(file, `item ${index} is not an object`);
    }
  });
  return tableFromRows(value as Array<Record<string, unknown>>, file);
}

/**
 * RFC 4180: fields separated by commas, quoted with "", "" inside quotes is one ", CRLF or LF. The
 * first line names the columns, unless `named` does (a file without a header line).
 */
export function parseCsv(file: string, text: string, named?: readonly string[]): FeederTable {
  const records: Array<{ line: number; fields: string[] }> = [];
  let pos = 0;
  let line = 1;
  while (pos < text.length) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = text.length;
    const lineEnd = end > pos && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const segment = text.slice(pos, lineEnd);
    if (!segment.includes('"')) {
      // The common case: no quotes, one line, split as it is.
      if (segment !== "") records.push({ line, fields: segment.split(",") });
      pos = end + 1;
      line++;
      continue;
    }
    const record = quotedRecord(file, text, pos, line);
    records.push({ line, fields: record.fields });
    pos = record.next;
    line = record.line;
  }
  if (named !== undefined) {
    for (const row of records) {
      if (row.fields.length !== named.length) {
        throw new DataFileError(
          file,
          `line ${row.line}: ${row.fields.length} fields where columns names ${named.length}`,
        );
      }
    }
    return { columns: [...named], rows: records.map((r) => r.fields) };
  }
  const [header, ...rows] = records;
  if (!header) throw new DataFileError(file, "is empty: it needs a header line");
  if (header.fields.length > MAX_DATA_COLUMNS) {
    throw new DataFileError(file, `line 1: more than ${MAX_DATA_COLUMNS} columns`);
  }
  const columns = header.fields.map((name) => name.trim());
  const seen = new Set<string>();
  for (const name of columns) {
    if (!name) throw new DataFileError(file, "line 1: a column has no name");
    if (seen.has(name)) throw new DataFileError(file, `line 1: column "${name}" appears twice`);
    seen.add(name);
  }
  for (const row of rows) {
    if (row.fields.length !== columns.length) {
      throw new DataFileError(
        file,
        `line ${row.line}: ${row.fields.length} fields where the header has ${columns.length}`,
      );
    }
  }
  return { columns, rows: rows.map((r) => r.fields) };
}

/** One record with quotes (which may hold commas and line breaks), from `start` to its end. */
function quotedRecord(
  file: string,
  text: string,
  start: number,
  startLine: number,
): { fields: string[]; next: number; line: number } {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  let line = startLine;
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        const next = text[i + 1];
        if (next !== undefined && next !== "," && next !== "\n" && next !== "\r") {
          throw new DataFileError(file, `line ${line}: text after a closing quote`);
        }
      } else {
        if (c === "\n") line++;
        field += c;
      }
    } else if (c === '"') {
      if (field !== "") throw new DataFileError(file, `line ${line}: a quote inside an unquoted field`);
      quoted = true;
    } else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      fields.push(field);
      const next = c === "\r" && text[i + 1] === "\n" ? i + 2 : i + 1;
      return { fields, next, line: line + 1 };
    } else {
      field += c;
    }
    i++;
  }
  if (quoted) throw new DataFileError(file, `line ${startLine}: a quoted field is not closed`);
  fields.push(field);
  return { fields, next: text.length, line: line + 1 };
}

/** Whether a text's UTF-8 size passes MAX_DATA_BYTES (portable: no Buffer in the dashboard). */
function overDataLimit(text: string): boolean {
  if (text.length * 3 <= MAX_DATA_BYTES) return false; // at most 3 bytes per UTF-16 unit
  return new TextEncoder().encode(text).length > MAX_DATA_BYTES;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : String(value);
}
