#!/usr/bin/env node
// Prints the gzipped JavaScript the first page loads and fails the build past the budget.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET_KB = 350;
const dist = new URL("../dist", import.meta.url).pathname;
const html = readFileSync(join(dist, "index.html"), "utf8");
const scripts = [
  ...html.matchAll(/<(?:script[^>]+src|link[^>]+rel="modulepreload"[^>]+href)="([^"]+\.js)"/g),
].map((m) => m[1]);
let total = 0;
for (const src of new Set(scripts)) {
  const size = gzipSync(readFileSync(join(dist, src))).length;
  total += size;
  console.log(`  ${src}  ${(size / 1024).toFixed(1)} KB gzip`);
}
console.log(`first page JavaScript: ${(total / 1024).toFixed(1)} KB gzip (budget ${BUDGET_KB} KB)`);
if (total > BUDGET_KB * 1024) {
  console.error("over the bundle budget");
  process.exit(1);
}
