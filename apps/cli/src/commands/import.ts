import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import {
  ImportError,
  type Imported,
  importCurl,
  importHar,
  importOpenapi,
  importPostman,
  MAX_IMPORT_BYTES,
  toYaml,
} from "@volley/migrate";
import { parseFlags } from "../args.js";
import { EXIT, UsageError } from "../cli-error.js";

const HELP = `Usage: volley import <har|openapi|postman|curl> SOURCE [options]

Writes a scenario (YAML) from an existing test or recording; it validates, runs one VU once,
and says in its header what it left out.

  volley import har recording.har -o shop.yaml     a browser recording (DevTools: "Save all as HAR")
  volley import openapi api.yaml                   one request per operation (3.0 and 3.1)
  volley import postman collection.json            a Postman collection v2.1 (folders become groups)
  volley import curl 'curl -X POST https://...'    one request ("Copy as cURL")

SOURCE is a file, "-" for standard input, or for curl the command itself.

Options:
  -o, --out FILE     write the scenario there (default: standard output)
  --target URL       the target to test, in place of the source's host
  --keep-assets      har: keep images, scripts, styles, fonts and media
  --keep-origins     har: keep requests to other origins than the recorded site's`;

const KINDS = ["har", "openapi", "postman", "curl"] as const;
type Kind = (typeof KINDS)[number];

/** `volley import`: another tool's test or a recording → a Volley scenario. */
export async function importCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      out: { type: "string", short: "o" },
      target: { type: "string" },
      "keep-assets": { type: "boolean" },
      "keep-origins": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    2,
  );
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  const [kind, from] = positionals;
  if (!(KINDS as readonly string[]).includes(kind ?? ""))
    throw new UsageError(
      `expected one of ${KINDS.join(", ")}, got ${kind ? `"${kind}"` : "nothing"}\n\n${HELP}`,
    );
  if (from === undefined)
    throw new UsageError(`${kind}: give the source (a file, "-" or for curl the command)`);
  const target = values.target === undefined ? undefined : targetFlag(values.target);
  const source = readSource(kind as Kind, from);
  let imported: Imported;
  let yaml: string;
  try {
    imported = importFrom(kind as Kind, source, {
      keepAssets: values["keep-assets"],
      keepOrigins: values["keep-origins"],
    });
    if (target !== undefined) imported.scenario.target = target;
    yaml = toYaml(imported, source.name === "curl" ? "a curl command" : source.name);
  } catch (error) {
    if (error instanceof ImportError) throw new UsageError(error.message);
    throw error;
  }
  const requests = (yaml.match(/^\s*- name: /gm) ?? []).length;
  if (values.out === undefined) {
    process.stdout.write(yaml);
  } else {
    writeFileSync(values.out, yaml);
    console.error(`Wrote ${values.out}: ${requests} requests from ${source.name}.`);
  }
  for (const note of imported.notes) console.error(`  note: ${note}`);
  return EXIT.ok;
}

function importFrom(
  kind: Kind,
  source: { text: string; name: string },
  har: Parameters<typeof importHar>[1],
) {
  switch (kind) {
    case "har":
      return importHar(source, har);
    case "openapi":
      return importOpenapi(source);
    case "postman":
      return importPostman(source);
    case "curl":
      return importCurl(source);
  }
}

function readSource(kind: Kind, from: string): { text: string; name: string } {
  if (from === "-") return { text: readFileSync(0, "utf8"), name: "standard input" };
  if (kind === "curl" && /^\s*curl(\s|$)/.test(from)) return { text: from, name: "curl" };
  if (!existsSync(from)) throw new UsageError(`${kind}: ${from}: no such file`);
  const size = statSync(from).size;
  if (size > MAX_IMPORT_BYTES)
    throw new UsageError(
      `${kind}: ${from}: ${size} bytes, more than the ${MAX_IMPORT_BYTES / 1024 / 1024} MB an import reads`,
    );
  return { text: readFileSync(from, "utf8"), name: basename(from) };
}

function targetFlag(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  } catch {
    // Named below.
  }
  throw new UsageError(`--target: "${text}" is not an http:// or https:// URL`);
}
