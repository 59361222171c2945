import { z } from "zod";
import { MAX_OWN_NAME } from "./scoped-names.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
export const CONTROL_RE = /[\u0000-\u001f\u007f]/;

/** A request's or group's name: statistics, reports and stored series are keyed by it. */
export const statsNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(MAX_OWN_NAME)
  .refine((name) => !CONTROL_RE.test(name), { error: "a name must not hold control characters" });

/** A file's path relative to the scenario file (`example`: how one looks), checked as text only. */
export function relativeFileSchema(example: string) {
  return z
    .string()
    .min(1)
    .max(500)
    .refine((path) => !CONTROL_RE.test(path), { error: "must not contain control characters" })
    .refine((path) => !/^([/\\]|[A-Za-z]:)/.test(path), {
      error: `give a path relative to the scenario file (e.g. ${example})`,
    });
}
