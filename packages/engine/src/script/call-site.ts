import { findSourceMap } from "node:module";
import { pathToFileURL } from "node:url";

/** Where in the bundle a call was made: a key to map once to the script's own file and line. */
export interface BundlePosition {
  file: string;
  line: number;
  column: number;
}

type Frames = NodeJS.CallSite[];
const rawFrames = (_error: Error, frames: Frames): Frames => frames;
/**
 * Frames captured: the engine's own between the script and here (3 for `vu.http.get`, 5 for
 * `vu.http.batch`, whose `map` adds two) and the script's first. A capture costs per frame
 * (7.3 µs at V8's default of 10, 4.7 µs at 5, on this machine; a third of a thread's time when
 * every request is located), and the frames below the script's are never read.
 */
const FRAMES = 8;

/**
 * The first frame of the current stack in the script's bundle, read as V8's structured frames:
 * no stack text is formatted and no source map is read here (that costs tens of microseconds a
 * call), so a request can afford to keep where it was made.
 */
export function bundleCallSite(frameRoot: string): BundlePosition | null {
  const original = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  Error.prepareStackTrace = rawFrames;
  Error.stackTraceLimit = FRAMES;
  const holder: { stack?: Frames } = {};
  Error.captureStackTrace(holder, bundleCallSite);
  const frames = holder.stack;
  Error.prepareStackTrace = original;
  Error.stackTraceLimit = limit;
  const rootUrl = fileUrlOf(frameRoot);
  for (const frame of frames ?? []) {
    const file = frame.getFileName();
    if (file === undefined || file === null) continue;
    // The bundle was imported by its file URL: compared as a URL, no frame's name is parsed.
    if (!file.startsWith(rootUrl) && !file.startsWith(frameRoot)) continue;
    return { file, line: frame.getLineNumber() ?? 0, column: frame.getColumnNumber() ?? 0 };
  }
  return null;
}

/** The file URL of a frame root (a folder path ending in "/"), made once per root. */
const rootUrls = new Map<string, string>();
function fileUrlOf(frameRoot: string): string {
  let url = rootUrls.get(frameRoot);
  if (url === undefined) {
    url = pathToFileURL(frameRoot).href;
    if (!url.endsWith("/")) url += "/";
    if (rootUrls.size > 100) rootUrls.clear(); // a thread loads its scripts once: never reached
    rootUrls.set(frameRoot, url);
  }
  return url;
}

/**
 * "flow.ts:12" for a bundle position, through the bundle's inline source map (kept by Node since
 * the bundle was imported with source maps on); cached, so each place is mapped once.
 */
export class CallSiteNames {
  private readonly names = new Map<string, string>();

  constructor(
    /** Source paths in the map are relative to the scenario's folder below this prefix. */
    private readonly frameRoot: string,
  ) {}

  nameOf(position: BundlePosition): string {
    const key = `${position.file}:${position.line}:${position.column}`;
    let name = this.names.get(key);
    if (name === undefined) {
      name = this.map(position);
      this.names.set(key, name);
    }
    return name;
  }

  private map(position: BundlePosition): string {
    const entry = findSourceMap(position.file)?.findEntry(position.line - 1, position.column - 1);
    const source = entry && "originalSource" in entry ? entry.originalSource : undefined;
    if (!entry || !source || !("originalLine" in entry)) return "";
    const path = source.startsWith("file://") ? new URL(source).pathname : source;
    const relative = path.startsWith(this.frameRoot) ? path.slice(this.frameRoot.length) : path;
    return `${relative}:${entry.originalLine + 1}`;
  }
}
