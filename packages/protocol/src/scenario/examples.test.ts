import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatFromFileName, parseScenario, readScenarioText } from "./parse-scenario.js";

const folder = new URL("../../../../examples/", import.meta.url);
const files = readdirSync(folder).filter((f) => /\.(json|ya?ml)$/.test(f));

describe("examples/", () => {
  it("has examples", () => expect(files.length).toBeGreaterThanOrEqual(4));
  it.each(files)("%s is a valid scenario", (file) => {
    const scenario = parseScenario(
      readScenarioText(readFileSync(new URL(file, folder), "utf8"), formatFromFileName(file)),
    );
    // Each part sends requests, or runs a script.
    expect(scenario.requests.length > 0 || scenario.parts.every((part) => part.script !== null)).toBe(true);
  });
});
