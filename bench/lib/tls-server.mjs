// A node server for `pnpm bench h2`: `h2` (http2 over TLS, ALPN h2 only), `h2c` (http2 over plain
// TCP) or `https` (HTTP/1.1 over TLS). Sends its port to the parent once listening.
import { readFileSync } from "node:fs";
import { createServer as createH2cServer, createSecureServer } from "node:http2";
import { createServer } from "node:https";
import { join } from "node:path";

const [kind, dir] = process.argv.slice(2);
const options = { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) };
const answer = (_req, res) => res.end("hello world");
const server =
  kind === "h2"
    ? createSecureServer({ ...options, allowHTTP1: false }, answer)
    : kind === "h2c"
      ? createH2cServer(answer)
      : createServer(options, answer);
server.listen(0, "127.0.0.1", () => process.send(server.address().port));
