import {
  CHECK_METHOD,
  GROUP_METHOD,
  isIterationStatsName,
  MAX_OWN_NAME,
  NOT_AWAITED_METHOD,
  notAwaitedStatsName,
  SCRIPT_METHOD,
  scopedName,
} from "@volley/protocol";
import { RequestRecorder } from "@volley/stats";

/** Most distinct names a thread's scripts may record under; past it new names share one. */
export const MAX_SCRIPT_NAMES = 1000;
const OTHER_NAMES = "(other names)";

/**
 * The recorders of a thread's scripted VUs, made as the scripts name their requests, groups and
 * checks. A script that makes a name per URL (`/orders/123`, `/orders/124`...) would grow the
 * statistics without bound: past MAX_SCRIPT_NAMES, new names record under "METHOD (other names)".
 */
export class ScriptRecorders {
  private readonly byKey = new Map<string, RequestRecorder>();
  /** The same recorders by method, then name: the request path looks up without building a key. */
  private readonly byMethod = new Map<string, Map<string, RequestRecorder>>();
  /** Recorders of requests named by default (`METHOD path`), by method, then path: no name is built per request. */
  private readonly byPath = new Map<string, Map<string, RequestRecorder>>();
  /** The not-awaited recorders by the place requests were made. */
  private readonly notAwaitedAt = new Map<string, RequestRecorder>();

  constructor(
    private readonly histograms = true,
    /** The part (of `scenarios:`) whose scripts these record: its names are scoped by it. */
    private readonly scope: string | null = null,
  ) {}

  request(name: string, method: string): RequestRecorder {
    return this.byMethod.get(method)?.get(name) ?? this.get(name, method);
  }

  /** The recorder of a request under its default name, `METHOD path` (the path without its query). */
  requestAt(method: string, path: string): RequestRecorder {
    let paths = this.byPath.get(method);
    const known = paths?.get(path);
    if (known !== undefined) return known;
    const recorder = this.request(`${method} ${path}`, method);
    // Past MAX_SCRIPT_NAMES a new path records as "(other names)": not kept here, so this map
    // stays as small as the names.
    if (recorder.name.endsWith(OTHER_NAMES)) return recorder;
    if (paths === undefined) {
      paths = new Map();
      this.byPath.set(method, paths);
    }
    paths.set(path, recorder);
    return recorder;
  }

  group(name: string): RequestRecorder {
    return this.get(name, GROUP_METHOD);
  }

  check(name: string): RequestRecorder {
    return this.get(name, CHECK_METHOD);
  }

  /** Where a script's uncaught errors are counted: under the script's path. */
  scriptErrors(script: string): RequestRecorder {
    return this.get(script, SCRIPT_METHOD);
  }

  /**
   * Where requests the script did not await are counted: by the place it made them. Looked up
   * by the place itself (a bundle's stamp, one string per call in the code): no name is built
   * per request.
   */
  notAwaited(at: string): RequestRecorder {
    const known = this.notAwaitedAt.get(at);
    if (known !== undefined) return known;
    const recorder = this.request(notAwaitedStatsName(at), NOT_AWAITED_METHOD);
    // Places are as many as the script's calls; bounded all the same, as the names are.
    if (this.notAwaitedAt.size < MAX_SCRIPT_NAMES) this.notAwaitedAt.set(at, recorder);
    return recorder;
  }

  all(): IterableIterator<RequestRecorder> {
    return this.byKey.values();
  }

  private get(name: string, method: string): RequestRecorder {
    const key = `${method} ${name}`;
    let recorder = this.byKey.get(key);
    if (recorder) return recorder;
    const overflow = `${method} ${OTHER_NAMES}`;
    if (this.byKey.size >= MAX_SCRIPT_NAMES && name !== overflow) return this.get(overflow, method);
    // A script's own errors and the internal names (unawaited requests; a stream's timings, made of
    // its request's scoped name) are kept as they are; a name the script gave is bounded, then scoped.
    const kept =
      method === SCRIPT_METHOD || isIterationStatsName(name)
        ? name
        : scopedName(this.scope, name.slice(0, MAX_OWN_NAME));
    recorder = new RequestRecorder(kept, method, this.histograms);
    this.byKey.set(key, recorder);
    let names = this.byMethod.get(method);
    if (!names) {
      names = new Map();
      this.byMethod.set(method, names);
    }
    names.set(name, recorder);
    return recorder;
  }
}
