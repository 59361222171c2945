#!/usr/bin/env node
// `pnpm link-cli [DIR]`: puts the `volley` command on PATH as a symlink DIR/volley ->
// apps/cli/dist/bin.js (DIR defaults to ~/.local/bin). Node follows the link to this checkout,
// so the command uses this checkout's build and dependencies; `pnpm build` updates it in place.
import { chmodSync, existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const bin = join(root, "apps/cli/dist/bin.js");
if (!existsSync(bin)) {
  console.error("link-cli: apps/cli/dist/bin.js is missing: run `pnpm build` first");
  process.exit(2);
}
const dir = resolve(process.argv[2] ?? join(homedir(), ".local/bin"));
const link = join(dir, "volley");
mkdirSync(dir, { recursive: true });
chmodSync(bin, 0o755);
const present = existsSync(link) || lstatSync(link, { throwIfNoEntry: false });
if (present) {
  if (!lstatSync(link).isSymbolicLink()) {
    console.error(`link-cli: ${link} exists and is not a link: remove it or choose another directory`);
    process.exit(2);
  }
  if (readlinkSync(link) !== bin) unlinkSync(link);
}
if (!existsSync(link)) symlinkSync(bin, link);
console.log(`volley -> ${bin}\n  linked as ${link}`);
const onPath = (process.env.PATH ?? "").split(delimiter).some((entry) => resolve(entry) === dir);
if (!onPath) console.log(`  ${dir} is not on your PATH: add it, e.g. export PATH="${dir}:$PATH"`);
