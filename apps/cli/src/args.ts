import { readFileSync } from "node:fs";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./cli-error.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses flags strictly; an unknown flag or a missing value is a UsageError naming it. */
export function parseFlags<O extends Options>(
  argv: string[],
  options: O,
  positionals = 0,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>> {
  try {
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals) {
      throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message.replace(/\. To specify.*$/s, ""));
  }
}

/** A whole number flag within bounds, or a UsageError naming the flag. */
export function intFlag(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new UsageError(`--${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
  }
  return number;
}

/** The `--token-file` flag beside `--token` (a token on the command line shows in `ps`). */
export const TOKEN_FLAGS = {
  token: { type: "string" },
  "token-file": { type: "string" },
} as const;

/** The token: `--token`, else the first line of `--token-file`, else VOLLEY_TOKEN; undefined for none. */
export function tokenFlag(values: { token?: string; "token-file"?: string }): string | undefined {
  if (values.token !== undefined && values["token-file"] !== undefined) {
    throw new UsageError("--token and --token-file: give one of them");
  }
  if (values["token-file"] !== undefined) {
    const text = readFlagFile("token-file", values["token-file"]);
    const token = text.split(/\r?\n/)[0].trim();
    if (!token) throw new UsageError(`--token-file: ${values["token-file"]} is empty`);
    return token;
  }
  return values.token ?? (process.env.VOLLEY_TOKEN || undefined);
}

/** The text of a file a flag names, or a UsageError naming the flag, the file and why. */
export function readFlagFile(flag: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`--${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
}
