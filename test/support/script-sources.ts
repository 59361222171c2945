// The scripts the scripted-VU suites send: a flow that checks, groups and throws on purpose, and
// the module it imports (its line numbers are read by the tests: keep FLOW's throw on line 16).

export const FLOW = `
import type { Vu } from "@volley/script";
import { signature } from "./lib/sign";

export default async function (vu: Vu) {
  const hello = await vu.http.get("/hello", { name: "hello" });
  if (!vu.check("hello says hello", hello.body === "hello world")) return;
  await vu.group("pair", async () => {
    await vu.http.post("/echo", { json: { vu: vu.number }, headers: { "x-sig": signature("x") }, name: "echo" });
    await vu.http.get("/status/404", { name: "missing", expect: { status: 404 } });
  });
  vu.vars.seen = ((vu.vars.seen as number) ?? 0) + 1;
  vu.check("vars are kept", vu.vars.seen === vu.iteration + 1);
  if (vu.iteration === 1) {
    const broken: { deep?: { value: number } } = {};
    return broken.deep!.value;
  }
}
`;
export const SIGN = `
import { createHmac } from "node:crypto";
export function signature(text: string): string {
  return createHmac("sha256", "key").update(text).digest("hex");
}
`;
