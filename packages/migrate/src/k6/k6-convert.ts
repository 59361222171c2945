import { checkSize, DEFAULT_TARGET, defaultTargetNote, type ImportSource, requestName } from "../imported.js";
import { convertOptions } from "./k6-options.js";
import { COMPAT_DIR, COMPAT_IMPORT, convertK6Script } from "./k6-script.js";

/** `volley convert k6`: the scenario, the files to write beside it, and what was not converted. */
export interface K6Conversion {
  scenario: Record<string, unknown>;
  /** File name → text: the script, its compat module, and one entry file per k6 `exec` function. */
  files: Record<string, string>;
  /** Files the script reads with open(), relative to it: copied beside the converted script. */
  copies: string[];
  notes: string[];
  unconvertible: string[];
}

/**
 * Converts a k6 script. `base` names the output files (`base.yaml` is the caller's, `base.ts` the
 * script); `compat` is the compat module's files by name (assets/k6-compat/), written beside it in
 * `k6-compat/`.
 */
export function convertK6(
  source: ImportSource,
  base: string,
  compat: Readonly<Record<string, string>>,
): K6Conversion {
  checkSize(source);
  const script = convertK6Script(source.name, source.text);
  const converted = convertOptions(script.options ?? {}, script.renamed);
  const notes = [...script.notes, ...converted.notes];
  const files: Record<string, string> = { [`${base}.ts`]: script.text };
  for (const [name, text] of Object.entries(compat)) files[`${COMPAT_DIR}/${name}`] = text;
  const scenario: Record<string, unknown> = {
    name: requestName(base),
    target: firstOrigin(source.text) ?? DEFAULT_TARGET,
    ...(script.env.length > 0 ? { env: script.env } : {}),
  };
  if (scenario.target === DEFAULT_TARGET) notes.push(defaultTargetNote("the script names no absolute URL"));
  if (converted.parts) {
    const parts: Record<string, unknown> = {};
    for (const part of converted.parts) {
      let entry = `./${base}.ts`;
      if (part.exec === "default" && !script.hasDefault) {
        script.unconvertible.push(
          `options.scenarios.${part.name} runs the default function, which the script has not`,
        );
        continue;
      }
      if (part.exec !== "default") {
        if (!script.exported.includes(part.exec)) {
          script.unconvertible.push(
            `options.scenarios.${part.name}.exec: "${part.exec}" is not an exported function`,
          );
          continue;
        }
        entry = `./${base}.${part.exec}.ts`;
        files[`${base}.${part.exec}.ts`] = [
          "// The entry of k6's scenario that runs exec: " + part.exec + " (written by volley convert).",
          `import { k6Iteration } from "${COMPAT_IMPORT}";`,
          // ".ts": the k6 script itself (`${base}.js`) is often beside it.
          `import { ${part.exec} } from "./${base}.ts";`,
          ...(script.hooks.length > 0 ? [`export { ${script.hooks.join(", ")} } from "./${base}.ts";`] : []),
          "",
          `export default k6Iteration(${part.exec});`,
          "",
        ].join("\n");
      }
      parts[part.name] = { load: part.load, script: entry };
    }
    scenario.scenarios = parts;
    if (script.hooks.includes("setup") && Object.keys(parts).length > 1)
      notes.push("setup() runs once for each of the scenarios (k6 runs it once for the test)");
  } else {
    scenario.load = converted.load;
    scenario.script = `./${base}.ts`;
  }
  if (Object.keys(converted.thresholds).length > 0) scenario.thresholds = converted.thresholds;
  if (Object.keys(converted.http).length > 0) scenario.http = converted.http;
  return { scenario, files, copies: script.files, notes, unconvertible: script.unconvertible };
}

/** The origin of the first absolute http(s) URL the script writes (its target, most of the time). */
function firstOrigin(text: string): string | undefined {
  const match = /\bhttps?:\/\/[A-Za-z0-9.-]+(?::\d+)?/.exec(text);
  return match?.[0];
}
