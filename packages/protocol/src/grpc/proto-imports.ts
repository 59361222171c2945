// The one rule for which files a .proto needs: the CLI follows it on disk, the master checks that
// a run was sent them all, the worker loads them from memory by the same names.

/** Imports protobuf ships with (google/protobuf/*.proto): never sent, always there. */
export function isBundledProto(name: string): boolean {
  return name.startsWith("google/protobuf/");
}

/** At most this many .proto files travel with a run (a proto and its imports, transitively). */
export const MAX_PROTO_FILES = 200;

/** Largest .proto file (real ones are a few KiB): the master parses each when a run is created. */
export const MAX_PROTO_BYTES = 1024 * 1024;

/** A relative path with `.` and `..` resolved and `/` separators (`a/../b.proto` → `b.proto`). */
export function normalizeProtoName(name: string): string {
  const out: string[] = [];
  for (const part of name.replace(/\\/g, "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

function directoryOf(name: string): string {
  const slash = name.lastIndexOf("/");
  return slash < 0 ? "" : name.slice(0, slash + 1);
}

/** The files a .proto imports, as written (comments skipped; `weak` and `public` imports too). */
export function protoImports(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, " ");
  const found: string[] = [];
  for (const match of code.matchAll(/\bimport\s+(?:weak\s+|public\s+)?(?:"([^"]+)"|'([^']+)')\s*;/g)) {
    found.push(match[1] ?? match[2]);
  }
  return found;
}

/**
 * Where an import may be, in the order tried: beside the importing file, beside the run's entry
 * .proto (the usual include root), then as written (relative to the scenario file).
 */
export function protoImportCandidates(importer: string, imported: string, entry: string): string[] {
  const names = [
    normalizeProtoName(directoryOf(importer) + imported),
    normalizeProtoName(directoryOf(entry) + imported),
    normalizeProtoName(imported),
  ];
  return [...new Set(names)];
}

/**
 * Every file an entry .proto needs, itself first, found through `read` (null: no such file);
 * unresolved imports are returned as `missing` with the file that imports them.
 */
export function protoClosure(
  entry: string,
  read: (name: string) => string | null,
): { files: Record<string, string>; missing: Array<{ importer: string; imported: string }> } {
  const files: Record<string, string> = {};
  const missing: Array<{ importer: string; imported: string }> = [];
  const start = normalizeProtoName(entry);
  const text = read(start);
  if (text === null) return { files, missing: [{ importer: "", imported: start }] };
  files[start] = text;
  const queue = [start];
  while (queue.length > 0 && Object.keys(files).length <= MAX_PROTO_FILES) {
    const importer = queue.shift() as string;
    for (const imported of protoImports(files[importer])) {
      if (isBundledProto(imported)) continue;
      const candidates = protoImportCandidates(importer, imported, start);
      const known = candidates.find((name) => Object.hasOwn(files, name));
      if (known !== undefined) continue;
      let found = false;
      for (const name of candidates) {
        const source = read(name);
        if (source === null) continue;
        files[name] = source;
        queue.push(name);
        found = true;
        break;
      }
      if (!found) missing.push({ importer, imported });
    }
  }
  return { files, missing };
}
