import { parseScenario, ValidationError } from "@volley/protocol";
import { type ParseError, parse as parseJsonWithErrors, printParseErrorCode } from "jsonc-parser";
import { stringify } from "yaml";

/** A written scenario (the YAML's shape, before validation) and what the import could not carry over. */
export interface Imported {
  scenario: Record<string, unknown>;
  /** One line each: what was left out or changed, and why. */
  notes: string[];
}

/** What an importer is given: the source's text and the name it goes by in messages (a file name, "curl"). */
export interface ImportSource {
  text: string;
  name: string;
}

/** The largest source an importer reads (a HAR of a long session is a few MB). */
export const MAX_IMPORT_BYTES = 32 * 1024 * 1024;
/** The most requests one import writes: past it a recording is a session to cut, not a scenario. */
export const MAX_IMPORTED_REQUESTS = 2000;

/** Bad input: names the source (and line, where one is known) and what is wrong. */
export class ImportError extends Error {
  constructor(
    readonly source: string,
    readonly problem: string,
    readonly line?: number,
  ) {
    super(`${source}${line === undefined ? "" : `:${line}`}: ${problem}`);
    this.name = "ImportError";
  }
}

/** Refuses a source over MAX_IMPORT_BYTES before anything reads it. */
export function checkSize(source: ImportSource): void {
  if (source.text.length > MAX_IMPORT_BYTES)
    throw new ImportError(source.name, `larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
}

/** Parses JSON, naming the line and column of a syntax error. */
export function parseJson(source: ImportSource, what: string): unknown {
  try {
    return JSON.parse(source.text);
  } catch (error) {
    // JSON.parse does not always say where: a parser that reports offsets finds the first error.
    const errors: ParseError[] = [];
    parseJsonWithErrors(source.text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (first === undefined)
      throw new ImportError(source.name, `not ${what} (not valid JSON: ${(error as Error).message})`);
    const before = source.text.slice(0, first.offset).split("\n");
    const column = (before.at(-1)?.length ?? 0) + 1;
    throw new ImportError(
      source.name,
      `not ${what} (not valid JSON: ${printParseErrorCode(first.error)} at column ${column})`,
      before.length,
    );
  }
}

/** A stats name from free text: trimmed, one line, at most 200 characters. */
export function requestName(text: string): string {
  const name = text.replace(/\s+/g, " ").trim().slice(0, 200);
  return name.length > 0 ? name : "request";
}

/**
 * The scenario as YAML with a header comment saying where it came from and what was left out.
 * Throws when the written scenario does not validate: an importer's bug, never the user's.
 */
export function toYaml(imported: Imported, from: string, by = "volley import"): string {
  try {
    parseScenario(imported.scenario);
  } catch (error) {
    if (error instanceof ValidationError)
      throw new ImportError(from, `the scenario written from it does not validate: ${error.message}`);
    throw error;
  }
  const header = [
    `${by === "volley import" ? "Imported" : "Converted"} from ${from} by ${by}.`,
    ...imported.notes.map((note) => `Note: ${note}`),
    "Check the load and the thresholds before a real run.",
  ];
  const comment = header.map((line) => `# ${line.replace(/[\r\n]+/g, " ")}`).join("\n");
  return `${comment}\n${stringify(imported.scenario, { lineWidth: 0 })}`;
}

/** Where requests go when the source names no host that is known: the user sets theirs. */
export const DEFAULT_TARGET = "http://127.0.0.1:8080";

/** The note an import adds when its target is DEFAULT_TARGET, saying why. */
export function defaultTargetNote(why: string): string {
  return `${why}: the target is ${DEFAULT_TARGET}, set yours`;
}

/** The load of an imported scenario: one VU, one iteration, a smoke run to adjust. */
export const SMOKE_LOAD = { executor: "per-vu-iterations", vus: 1, iterations: 1 } as const;
