/** What `volley convert k6` does with each k6 module a script imports. */
export interface K6Module {
  /** The compat module's export a default or namespace import stands for. */
  whole?: string;
  /** Named imports the compat module exports under the same names. */
  named: ReadonlySet<string>;
}

export const K6_MODULES: Readonly<Record<string, K6Module>> = {
  k6: { named: new Set(["check", "group", "sleep", "fail"]) },
  "k6/http": { whole: "http", named: new Set() },
  "k6/metrics": { named: new Set(["Trend", "Counter", "Rate", "Gauge"]) },
  "k6/data": { named: new Set(["SharedArray"]) },
  "k6/crypto": { whole: "crypto", named: new Set() },
  "k6/encoding": { whole: "encoding", named: new Set() },
  "k6/ws": { whole: "ws", named: new Set() },
};

/** The methods of k6's module objects that wait (asynchronous in Volley: awaited by the converter). */
export const WAITING_METHODS: Readonly<Record<string, ReadonlySet<string>>> = {
  http: new Set(["get", "head", "options", "post", "put", "patch", "del", "request", "batch"]),
  ws: new Set(["connect"]),
};
/** Functions of module k6 that wait (asynchronous in Volley). */
export const WAITING = new Set(["sleep", "group"]);

/** Why a module a converter cannot carry over is left out (the list the output names). */
export function unconvertibleModule(source: string): string | null {
  if (/^https?:\/\//.test(source))
    return `a remote module (${source}): download it beside the script and import it`;
  if (source === "k6/browser" || source.startsWith("k6/experimental/browser"))
    return `${source}: browser tests are not converted (Volley drives protocols, not browsers)`;
  if (source.startsWith("k6/x/")) return `${source}: an xk6 extension, which Volley cannot load`;
  if (source.startsWith("k6/experimental/websockets"))
    return `${source}: rewrite its sockets with vu.ws.connect (docs/websocket.md)`;
  if (source === "k6/net/grpc") return `${source}: rewrite its calls with vu.grpc.connect (docs/grpc.md)`;
  if (source.startsWith("k6/")) return `${source}: a k6 module with no Volley equivalent`;
  return null;
}
