import { describe, expect, it } from "vitest";
import { DataFileError, parseCsv, parseDataFile, tableFromRows } from "./data.js";

describe("feeder files", () => {
  it("reads RFC 4180 CSV: quotes, doubled quotes, commas and line breaks in quotes, CRLF, BOM", () => {
    const text = '\uFEFFname,note\r\nplain,"a, b"\r\n"say ""hi""","two\nlines"\r\nlast,\r\n';
    expect(parseDataFile("x.csv", text)).toEqual({
      columns: ["name", "note"],
      rows: [
        ["plain", "a, b"],
        ['say "hi"', "two\nlines"],
        ["last", ""],
      ],
    });
  });

  it("names the file and line of what is wrong", () => {
    const problem = (text: string) => {
      try {
        parseCsv("f.csv", text);
      } catch (error) {
        return (error as DataFileError).message;
      }
      return "parsed";
    };
    expect(problem('a\n"open\nb\n')).toBe("f.csv: line 2: a quoted field is not closed");
    expect(problem('a\nx"y\n')).toBe("f.csv: line 2: a quote inside an unquoted field");
    expect(problem('a\n"x"y\n')).toBe("f.csv: line 2: text after a closing quote");
    expect(problem("a,b\n1\n")).toBe("f.csv: line 2: 1 fields where the header has 2");
    // A record with a line break inside quotes moves the line count on.
    expect(problem('a,b\n"1\n2",3\n4\n')).toBe("f.csv: line 4: 1 fields where the header has 2");
    expect(problem("a,a\n1,2\n")).toBe('f.csv: line 1: column "a" appears twice');
    expect(problem("")).toBe("f.csv: is empty: it needs a header line");
  });

  it("reads a JSON array of objects, and inline rows, with every field any row has", () => {
    expect(parseDataFile("u.json", '[{"a":1,"b":true},{"a":"x","c":null}]')).toEqual({
      columns: ["a", "b", "c"],
      rows: [
        ["1", "true", ""],
        ["x", "", ""],
      ],
    });
    expect(() => parseDataFile("u.json", '{"a":1}')).toThrow("u.json: must be a JSON array of objects");
    expect(() => parseDataFile("u.json", "header\n")).toThrow(DataFileError);
    expect(tableFromRows([{ sku: "A1" }, { sku: "B2", n: 2 }])).toEqual({
      columns: ["sku", "n"],
      rows: [
        ["A1", ""],
        ["B2", "2"],
      ],
    });
  });
});

describe("feeder columns are bounded", () => {
  // 3,000 rows of one distinct key each took the master 27.5 s (keys x keys, then rows x keys cells).
  const manyKeys = Array.from({ length: 3000 }, (_, i) => ({ [`k${i}`]: i }));

  it("refuses more than 200 distinct fields in inline rows, a JSON file or a CSV header, at once", () => {
    expect(() => tableFromRows(manyKeys)).toThrow("rows: has more than 200 distinct fields");
    expect(() => parseDataFile("wide.json", JSON.stringify(manyKeys))).toThrow(
      "wide.json: has more than 200 distinct fields",
    );
    const header = Array.from({ length: 201 }, (_, i) => `c${i}`).join(",");
    expect(() => parseDataFile("wide.csv", `${header}\n${"x,".repeat(200)}x\n`)).toThrow(
      "wide.csv: line 1: more than 200 columns",
    );
  });

  it("keeps exactly 200 columns", () => {
    const wide = [Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`c${i}`, i]))];
    expect(tableFromRows(wide).columns).toHaveLength(200);
  });

  it("reads a CSV without a header line when the scenario names its columns, every line a row", () => {
    expect(parseDataFile("u.csv", "ann,pw1\nbob,pw2\n", ["user", "password"])).toEqual({
      columns: ["user", "password"],
      rows: [
        ["ann", "pw1"],
        ["bob", "pw2"],
      ],
    });
    expect(() => parseDataFile("u.csv", "ann,pw1\nbob\n", ["user", "password"])).toThrow(
      "u.csv: line 2: 1 fields where columns names 2",
    );
  });
});
