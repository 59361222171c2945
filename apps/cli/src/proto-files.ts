import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { formatPath, MAX_PROTO_BYTES, protoClosure, type Scenario } from "@volley/protocol";
import { UsageError } from "./cli-error.js";

/** `"protos/greeter.proto"` and the like in a script's code: the protos it connects with. */
const PROTO_LITERAL_RE = /["'`]([^"'`\s]{1,500}\.proto)["'`]/g;

/**
 * The .proto files a run needs, base64 by name (relative to the scenario file): each `grpc:`
 * request's proto with its imports, and the protos a script names in its code (with theirs).
 * A proto or import that cannot be read is a usage error naming the field.
 */
export function protoAttachments(
  scenario: Scenario,
  scenarioFile: string,
  scripts: Readonly<Record<string, string>>,
): Record<string, string> {
  const base = dirname(resolve(scenarioFile));
  const read = (name: string): string | null => {
    const path = resolve(base, name);
    if (!existsSync(path) || !statSync(path).isFile()) return null;
    if (statSync(path).size > MAX_PROTO_BYTES)
      throw new UsageError(`${name} is larger than ${MAX_PROTO_BYTES / 1024 / 1024} MiB`);
    return readFileSync(path, "utf8");
  };
  const attachments: Record<string, string> = {};
  const take = (entry: string, where: string, required: boolean) => {
    const closure = protoClosure(entry, read);
    for (const { importer, imported } of closure.missing) {
      if (importer === "" && !required) return;
      throw new UsageError(
        importer === ""
          ? `${where}: cannot read ${imported}`
          : `${where}: ${importer} imports "${imported}", found neither beside it nor beside ${entry}`,
      );
    }
    for (const [name, text] of Object.entries(closure.files))
      attachments[name] = Buffer.from(text).toString("base64");
  };
  scenario.requests.forEach((request, index) => {
    if (request.grpc)
      take(request.grpc.proto, `${formatPath(scenario.requestPaths[index])}.grpc.proto`, true);
  });
  for (const [script, source] of Object.entries(scripts)) {
    if (script.includes("node_modules/")) continue;
    for (const match of source.matchAll(PROTO_LITERAL_RE)) take(match[1], script, false);
  }
  return attachments;
}
