import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/processes.js";

// test/README.md says what each suite proves: it must name every suite there is, and only those.
describe("test/README.md", () => {
  it("names every suite in test/ and no suite that does not exist", () => {
    const dir = join(ROOT, "test");
    const suites = readdirSync(dir)
      .filter((name) => /\.(int|browser)\.test\.ts$/.test(name))
      .sort();
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    const named = [
      ...new Set([...readme.matchAll(/`([a-z0-9-]+\.(?:int|browser)\.test\.ts)`/g)].map((m) => m[1])),
    ].sort();
    expect(
      suites.filter((suite) => !named.includes(suite)),
      "suites the README does not name",
    ).toEqual([]);
    expect(
      named.filter((suite) => !suites.includes(suite)),
      "names in the README with no suite",
    ).toEqual([]);
  });
});

// A fixed sleep that asserts an absence passes on a slow machine for the wrong reason: suites wait
// with waitFor on a positive sign, and keep a condition for a time only through hold().
describe("the suites' waiting", () => {
  it("no suite sleeps a fixed time of its own", () => {
    const dir = join(ROOT, "test");
    const sleeping = readdirSync(dir)
      .filter((name) => name.endsWith(".test.ts"))
      .filter((name) =>
        /new Promise[^\n]*=>\s*setTimeout\(|\.waitForTimeout\(/.test(readFileSync(join(dir, name), "utf8")),
      );
    expect(sleeping).toEqual([]);
  });
});
