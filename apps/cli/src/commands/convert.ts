import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { COMPAT_DIR, convertK6, ImportError, MAX_IMPORT_BYTES, toYaml } from "@volley/migrate";
import { parseFlags } from "../args.js";
import { EXIT, UsageError } from "../cli-error.js";

const HELP = `Usage: volley convert k6 SCRIPT.js [-o DIR] [--force]

Converts a k6 script into a Volley scenario (SCRIPT.yaml: load, scenarios, thresholds) and a
script (SCRIPT.ts, k6's calls kept over k6-compat/, written beside it). What it cannot convert
(browser tests, xk6 extensions, handleSummary, remote modules) is listed, and marked in the script.

Options:
  -o, --out DIR   where to write (default: the script's folder)
  --force         overwrite files that exist`;

/** `volley convert k6`: a k6 script → a scenario, a script and the compat module beside them. */
export async function convertCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      out: { type: "string", short: "o" },
      force: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    2,
  );
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  const [tool, file] = positionals;
  if (tool !== "k6") throw new UsageError(`expected "k6", got ${tool ? `"${tool}"` : "nothing"}\n\n${HELP}`);
  if (file === undefined) throw new UsageError("k6: give the script to convert");
  if (!existsSync(file)) throw new UsageError(`k6: ${file}: no such file`);
  if (statSync(file).size > MAX_IMPORT_BYTES)
    throw new UsageError(`k6: ${file}: larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
  const base = basename(file).replace(/\.[cm]?[jt]s$/, "");
  const out = resolve(values.out ?? dirname(file));
  // The compat module, one file per k6 module, as @volley/migrate ships it.
  const compatDir = new URL(`../assets/${COMPAT_DIR}/`, import.meta.resolve("@volley/migrate"));
  const compat = Object.fromEntries(
    readdirSync(compatDir)
      .filter((name) => name.endsWith(".ts"))
      .map((name) => [name, readFileSync(new URL(name, compatDir), "utf8")]),
  );
  let written: Record<string, string>;
  let conversion: ReturnType<typeof convertK6>;
  try {
    conversion = convertK6({ text: readFileSync(file, "utf8"), name: basename(file) }, base, compat);
    written = {
      ...conversion.files,
      [`${base}.yaml`]: toYaml(
        { scenario: conversion.scenario, notes: conversion.notes },
        basename(file),
        "volley convert k6",
      ),
    };
  } catch (error) {
    if (error instanceof ImportError) throw new UsageError(error.message);
    throw error;
  }
  const clashes = Object.keys(written).filter(
    (name) => !name.startsWith(`${COMPAT_DIR}/`) && existsSync(join(out, name)),
  );
  if (clashes.length > 0 && !values.force)
    throw new UsageError(`k6: ${clashes.map((c) => join(out, c)).join(", ")} exists: --force overwrites`);
  mkdirSync(out, { recursive: true });
  mkdirSync(join(out, COMPAT_DIR), { recursive: true });
  for (const [name, text] of Object.entries(written)) writeFileSync(join(out, name), text);
  // Files the script open()s travel beside it, at the same relative path.
  for (const copy of conversion.copies) {
    const from = resolve(dirname(file), copy);
    const to = resolve(out, copy);
    if (relative(out, to).startsWith("..")) {
      conversion.notes.push(`${copy} is outside ${out}: copy it and fix its import in ${base}.ts`);
    } else if (!existsSync(from)) {
      conversion.notes.push(`${copy} (open()ed by the script) does not exist beside it`);
    } else if (from !== to) {
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
    }
  }
  console.error(
    `Wrote ${Object.keys(written)
      .map((name) => join(out, name))
      .join(", ")}.`,
  );
  for (const note of conversion.notes) console.error(`  note: ${note}`);
  if (conversion.unconvertible.length > 0) {
    console.error("Could not convert:");
    for (const item of conversion.unconvertible) console.error(`  - ${item}`);
  }
  console.error(`Run it: volley run ${join(relative(process.cwd(), out) || ".", `${base}.yaml`)}`);
  return EXIT.ok;
}
