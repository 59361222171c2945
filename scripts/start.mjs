#!/usr/bin/env node
// `pnpm start`: builds what is missing or stale, then runs `volley start` (master + one local
// worker + Redis if none answers). Signals are passed on so Ctrl-C stops everything.
import { execFileSync, spawn } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });
const child = spawn(process.execPath, ["apps/cli/dist/bin.js", "start", ...process.argv.slice(2)], {
  cwd: process.cwd(),
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
