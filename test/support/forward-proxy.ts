import { createServer, request, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/** An HTTP forward proxy on loopback that counts what went through it, for tests. */
export interface TestProxy {
  /** http://user:password@127.0.0.1:PORT */
  url: string;
  /** Requests forwarded in absolute form, by target host:port. */
  forwarded: Map<string, number>;
  /** CONNECT tunnels opened, by target host:port. */
  tunnels: Map<string, number>;
  /** Requests refused for want of the right Proxy-Authorization. */
  refused: number;
  reset(): void;
  close(): Promise<void>;
}

/** Plain HTTP forwarded (absolute form) and CONNECT tunnels, both only with `user:password`. */
export async function startForwardProxy(user = "volley", password = "proxy-pw"): Promise<TestProxy> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  const sockets = new Set<Socket>();
  const state: TestProxy = {
    url: "",
    forwarded: new Map(),
    tunnels: new Map(),
    refused: 0,
    reset() {
      state.forwarded.clear();
      state.tunnels.clear();
      state.refused = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const server: Server = createServer((req, res) => {
    if (req.headers["proxy-authorization"] !== expected) {
      state.refused++;
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"', "content-length": 0 }).end();
      return;
    }
    const target = new URL(req.url ?? "");
    count(state.forwarded, target.host);
    const { "proxy-authorization": _, "proxy-connection": __, ...headers } = req.headers;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("connect", (req, client: Socket, head) => {
    if (req.headers["proxy-authorization"] !== expected) {
      state.refused++;
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    const [host, port] = [
      req.url?.slice(0, req.url.lastIndexOf(":")) ?? "",
      Number(req.url?.split(":").pop()),
    ];
    count(state.tunnels, req.url ?? "");
    const upstream = connect(port, host.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://${user}:${password}@127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
