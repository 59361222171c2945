#!/usr/bin/env node
// Builds everything in dependency order, skipping what is already up to date:
// Prisma clients (when prisma/schema.prisma changed), TypeScript (tsc -b is incremental),
// the dashboard (when its sources or the protocol changed).
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildAddon } from "./native-addon.mjs";

const root = new URL("..", import.meta.url).pathname;
const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: "inherit" });

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "dist") continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

const clients = join(root, "packages/db/src/generated/sqlite/client.ts");
if (!existsSync(clients) || newest(join(root, "prisma/schema.prisma")) > newest(clients)) {
  console.log("build: generating Prisma clients");
  run(process.execPath, ["prisma/generate.mjs"]);
}

// The engine's batched plain-TCP reads (packages/engine/native): without a compiler the engine
// reads through node:net, as it says in its README.
const native = join(root, "packages/engine/native");
const why = buildAddon(
  native,
  join(native, "build/Release/socket_reads.node"),
  join(native, "socket-reads.c"),
);
console.log(why === null ? "build: native reads" : `build: native reads not built (${why}): node:net reads`);

console.log("build: TypeScript");
run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-b", "tsconfig.json"]);

const webDist = join(root, "apps/web/dist/index.html");
const webSources = Math.max(
  newest(join(root, "apps/web/src")),
  newest(join(root, "apps/web/index.html")),
  newest(join(root, "packages/protocol/src")),
  newest(join(root, "packages/migrate/src")),
);
if (!existsSync(webDist) || webSources > newest(webDist) || process.argv.includes("--force")) {
  console.log("build: dashboard");
  run("pnpm", ["--filter", "@volley/web", "build"]);
} else {
  console.log("build: dashboard is up to date");
}

// The `volley` command runs dist/bin.js directly once linked onto PATH (`pnpm link-cli`).
chmodSync(join(root, "apps/cli/dist/bin.js"), 0o755);
