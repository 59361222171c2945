import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { unpackRunFiles } from "./packed-files.js";

const pack = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value))).toString("base64");

describe("run files packed in start-run", () => {
  it("unpacks feeder tables, attachments and script bundles", async () => {
    const files = {
      data: { users: { columns: ["email"], rows: [["a@x"], ["b@x"]] } },
      attachments: { "a.txt": "aGk=" },
    };
    expect(await unpackRunFiles(pack(files))).toEqual({ ...files, scripts: {}, setupData: {} });
    const scripts = { "./flow.ts": "export default async () => {}" };
    expect((await unpackRunFiles(pack({ ...files, scripts }))).scripts).toEqual(scripts);
  });

  it("refuses what is not gzip, and what does not match the schema, naming the field", async () => {
    await expect(unpackRunFiles(Buffer.from("plain").toString("base64"))).rejects.toThrow(
      /incorrect header check/,
    );
    await expect(unpackRunFiles(pack({ data: { users: { columns: "email" } } }))).rejects.toThrow(
      /start-run files: data\.users\.columns/,
    );
    await expect(unpackRunFiles(pack({ data: {}, extra: 1 }))).rejects.toThrow(/unknown field "extra"/);
  });
});
