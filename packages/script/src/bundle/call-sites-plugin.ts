import { readFile } from "node:fs/promises";
import type { SourceMapPayload } from "node:module";
import { relative, sep } from "node:path";
import { type Loader, type Plugin, transform } from "esbuild";
import { stampCallSites } from "./stamp-call-sites.js";

const LOADERS: Record<string, Loader> = {
  ts: "ts",
  mts: "ts",
  cts: "ts",
  tsx: "tsx",
  js: "js",
  mjs: "js",
  cjs: "js",
  jsx: "jsx",
};

/**
 * Stamps the `vu.http` calls of the user's own files (not npm packages) with their place as
 * esbuild loads them (stampCallSites): each file is made JavaScript by esbuild's transform, its
 * calls wrapped, and handed back with its source map, which esbuild carries into the bundle's.
 * Only the user's files are parsed, so a bundle with large packages costs no more than before.
 * `base` is the scenario's folder; places are relative to it ("flow.ts:12", "../lib/api.ts:3").
 */
export function callSitesPlugin(base: string): Plugin {
  return {
    name: "volley-call-sites",
    setup(bundler) {
      bundler.onLoad({ filter: /\.(?:[cm]?[jt]s|[jt]sx)$/ }, async (args) => {
        if (args.namespace !== "file" || args.path.split(sep).includes("node_modules")) return undefined;
        // Imported as something else than code (`with { type: "text" }`): esbuild loads it so.
        if (Object.keys(args.with).length > 0) return undefined;
        const extension = args.path.slice(args.path.lastIndexOf(".") + 1);
        const source = await readFile(args.path, "utf8");
        const file = relative(base, args.path).split(sep).join("/");
        let js: { code: string; map: string };
        try {
          // No target: the syntax stays as written for the bundle's own build to lower (a target
          // here would drop import attributes, `with { type: "text" }`, among other things).
          js = await transform(source, {
            loader: LOADERS[extension] ?? "js",
            sourcefile: args.path,
            sourcemap: "external",
          });
        } catch {
          // Not valid: esbuild loads it itself and says where, as for any file.
          return undefined;
        }
        const { code, map } = stampCallSites(js.code, JSON.parse(js.map) as SourceMapPayload, file);
        const inline = Buffer.from(JSON.stringify(map)).toString("base64");
        return {
          contents: `${code}\n//# sourceMappingURL=data:application/json;base64,${inline}\n`,
          loader: "js",
        };
      });
    },
  };
}
