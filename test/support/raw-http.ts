import { type IncomingHttpHeaders, request } from "node:http";
import WebSocket from "ws";

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: <T = Record<string, unknown>>() => T;
}

/**
 * One HTTP request with the path sent exactly as given (fetch would normalise dot segments and
 * encodings away), and any headers, Host and Origin included.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            json: () => JSON.parse(text),
          });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The status a WebSocket upgrade gets: 101 when it opens, the HTTP status when refused, 0 on error. */
export function wsUpgradeStatus(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}${path}`, { headers });
    socket.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    socket.on("open", () => {
      socket.close();
      resolve(101);
    });
    socket.on("error", () => resolve(0));
  });
}
