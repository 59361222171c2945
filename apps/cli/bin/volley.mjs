#!/usr/bin/env node
// The `volley` command as pnpm links it: this file exists from the clone on (bins are linked at
// install, before the build), and runs the built CLI.
import { existsSync } from "node:fs";

const built = new URL("../dist/bin.js", import.meta.url);
if (!existsSync(built)) {
  console.error("volley: apps/cli/dist/bin.js is missing: run `pnpm build` first");
  process.exit(2);
}
await import(built.href);
