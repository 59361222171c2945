import { request } from "node:http";

export interface RawAnswer {
  status: number;
  body: string;
  json: () => Record<string, unknown>;
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
          resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
