import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback stand-in for httpbin.org (the target of k6's own examples), answering what those
 * examples read, and counting every request it receives.
 */
export interface Httpbin {
  url: string;
  /** Requests received, in order: method and URL. */
  log: string[];
  close(): Promise<void>;
}

const canonical = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());

export async function startHttpbin(): Promise<Httpbin> {
  const log: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      log.push(`${req.method} ${req.url}`);
      route(req, res, Buffer.concat(chunks).toString("utf8"));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function fields(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  const url = new URL(req.url ?? "/", "http://x");
  const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
  const path = url.pathname;
  const type = String(req.headers["content-type"] ?? "");
  if (["/get", "/post", "/put", "/patch", "/delete", "/anything"].includes(path)) {
    let parsed: unknown = null;
    try {
      parsed = type.includes("json") ? JSON.parse(body) : null;
    } catch {
      parsed = null;
    }
    json(200, {
      args: fields(url.searchParams),
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [canonical(k), String(v)])),
      form: type.includes("x-www-form-urlencoded") ? fields(new URLSearchParams(body)) : {},
      json: parsed,
      data: body,
      url: `http://${req.headers.host}${req.url}`,
    });
  } else if (path.startsWith("/basic-auth/")) {
    const [, , user, password] = path.split("/");
    const ok = req.headers.authorization === `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    json(ok ? 200 : 401, ok ? { authenticated: true, user } : { authenticated: false });
  } else if (path === "/cookies") {
    const cookies = Object.fromEntries(
      String(req.headers.cookie ?? "")
        .split(/;\s*/)
        .filter((p) => p.includes("="))
        .map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]),
    );
    json(200, { cookies });
  } else if (path === "/cookies/set") {
    const set = [...url.searchParams].map(([k, v]) => `${k}=${v}; Path=/`);
    res.writeHead(302, { location: "/cookies", "set-cookie": set }).end();
  } else if (path.startsWith("/redirect/")) {
    const n = Number(path.split("/")[2]);
    res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}` : "/get" }).end();
  } else if (path === "/pi.php") {
    res.writeHead(200, { "content-type": "text/plain" }).end("3.14");
  } else if (path.startsWith("/status/")) {
    res.writeHead(Number(path.split("/")[2]) || 500).end();
  } else {
    res
      .writeHead(200, { "content-type": "text/html" })
      .end('<html><p class="description">This is a replacement of the service test.k6.io</p></html>');
  }
}
