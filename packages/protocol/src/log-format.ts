import { ConfigError } from "./errors.js";

// How the master, workers and aggregators write their logs: JSON lines for machines (a file, a
// pipe, a log collector), short human lines on a person's terminal. pino writes JSON; on a
// terminal each line is turned into text here before it is printed.

export const LOG_FORMATS = ["json", "human"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * A component's log format: its option, else VOLLEY_LOG_FORMAT (the CLI's `--log-format` sets it),
 * else human on a terminal and JSON elsewhere. A bad value is a ConfigError naming the variable.
 */
export function logFormatOf(
  option: LogFormat | undefined,
  env: Record<string, string | undefined>,
): LogFormat {
  if (option !== undefined) return option;
  const format = resolveLogFormat(env.VOLLEY_LOG_FORMAT, process.stdout.isTTY);
  if (format === null) {
    throw new ConfigError(`VOLLEY_LOG_FORMAT: "${env.VOLLEY_LOG_FORMAT}" is not json or human`);
  }
  return format;
}

/** `--log-format` or VOLLEY_LOG_FORMAT when given (a bad value is null: the caller says so), else human on a TTY. */
export function resolveLogFormat(given: string | undefined, isTTY: boolean | undefined): LogFormat | null {
  if (given === undefined || given === "") return isTTY ? "human" : "json";
  return (LOG_FORMATS as readonly string[]).includes(given) ? (given as LogFormat) : null;
}

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
/** Fields every line has, shown in its head rather than as key=value. */
const HEAD_FIELDS = new Set(["level", "time", "msg", "pid", "hostname", "service", "v"]);

function show(value: unknown): string {
  if (typeof value === "string") return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  if (value !== null && typeof value === "object" && "message" in value)
    return show((value as { message: unknown }).message);
  return JSON.stringify(value);
}

/**
 * One pino JSON line as a person reads it: `12:04:05 WARN  master  worker lost workerId=w-1`.
 * A line that is not JSON is left as it is.
 */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (entry === null || typeof entry !== "object") return line;
  const time = typeof entry.time === "number" ? new Date(entry.time).toISOString().slice(11, 19) : "";
  const level = (LEVELS[Number(entry.level)] ?? String(entry.level ?? "")).padEnd(5);
  const service = String(entry.service ?? "").replace(/^volley-/, "");
  const fields = Object.entries(entry)
    .filter(([key]) => !HEAD_FIELDS.has(key))
    .map(([key, value]) => `${key}=${show(value)}`);
  return `${[time, level, service, String(entry.msg ?? "")].filter(Boolean).join("  ")}${fields.length ? `  ${fields.join(" ")}` : ""}\n`;
}

/** A stream pino can write to that prints each line for a person (on `out`, the terminal). */
export function humanLogStream(out: { write(text: string): unknown }): { write(line: string): void } {
  return {
    write(line: string) {
      out.write(formatLogLine(line.endsWith("\n") ? line.slice(0, -1) : line));
    },
  };
}
