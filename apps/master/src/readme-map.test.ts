import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The README's file-by-file maps of src/runs/ and src/pipeline/ name every file there, and only those.
const src = import.meta.dirname;
const readme = readFileSync(join(src, "../README.md"), "utf8");

describe.each(["runs", "pipeline"])("README map of src/%s/", (folder) => {
  it("names every file and folder in it, and nothing else", () => {
    const entries = readdirSync(join(src, folder))
      .filter((name) => !name.endsWith(".test.ts"))
      .map((name) => (statSync(join(src, folder, name)).isDirectory() ? `${name}/` : name))
      .sort();
    const after = readme.split(`### \`src/${folder}/\`, file by file`)[1] ?? "";
    // The section's table: its rows, up to the first line that is not one.
    const lines = after.trimStart().split("\n");
    const end = lines.findIndex((line) => !line.startsWith("|"));
    const section = lines.slice(0, end).join("\n");
    const named = [...new Set([...section.matchAll(/`([a-z0-9-]+(?:\.ts|\/))`/g)].map((m) => m[1]))].sort();
    expect(
      entries.filter((e) => !named.includes(e)),
      "files the README does not name",
    ).toEqual([]);
    expect(
      named.filter((n) => !entries.includes(n)),
      "names with no file",
    ).toEqual([]);
  });
});
