import { describe, expect, it } from "vitest";
import { csvText } from "./csv-report.js";

describe("csvText", () => {
  it.each([
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ["+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\""],
    ["@SUM(1+1)", '"\'@SUM(1+1)"'],
    ["-2+3", '"\'-2+3"'],
    ["\t=1+1", '"\'\t=1+1"'],
    ["\r=1+1", '"\'\r=1+1"'],
  ])("neutralises a formula: %j", (name, cell) => {
    expect(csvText(name)).toBe(cell);
  });

  it("leaves plain names alone and quotes separators", () => {
    expect(csvText("GET /hello")).toBe("GET /hello");
    expect(csvText("a,b")).toBe('"a,b"');
    expect(csvText('say "hi"')).toBe('"say ""hi"""');
  });
});
