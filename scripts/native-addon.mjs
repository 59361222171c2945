// Builds a native addon with the node-gyp that npm carries, against Node's own headers where they
// are installed beside it (no download: CI machines and this one are offline). Used by the
// build (the engine's native reads) and by the bench (its native I/O floor).
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Builds the addon in `dir` (its binding.gyp) unless `addon` is newer than `source`. Returns
 * null when built or up to date, else why it could not be built (the caller goes without it).
 */
export function buildAddon(dir, addon, source) {
  if (existsSync(addon) && statSync(addon).mtimeMs >= statSync(source).mtimeMs) return null;
  const prefix = join(dirname(process.execPath), "..");
  const gyp = join(prefix, "lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js");
  if (!existsSync(gyp)) return `no node-gyp beside npm (${gyp})`;
  const headers = existsSync(join(prefix, "include/node/node_api.h")) ? [`--nodedir=${prefix}`] : [];
  try {
    execFileSync(process.execPath, [gyp, "rebuild", ...headers], { cwd: dir, stdio: "pipe" });
  } catch (error) {
    return `node-gyp failed: ${String(error.stderr ?? error.message)
      .trim()
      .split("\n")
      .slice(-3)
      .join(" ")}`;
  }
  return existsSync(addon) ? null : `node-gyp made no ${addon}`;
}
