// A counting target server as its own process, for tests that put it on another "host" (a
// network namespace). It counts requests by client address; GET /__counts answers them as JSON.
import { createServer } from "node:http";

const [host, port] = [process.argv[2] ?? "127.0.0.1", Number(process.argv[3] ?? 0)];
const counts = {};
const server = createServer((req, res) => {
  if (req.url === "/__counts") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(counts));
    return;
  }
  const from = req.socket.remoteAddress ?? "?";
  counts[from] = (counts[from] ?? 0) + 1;
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/plain", "content-length": 11 });
    res.end("hello world");
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, host, () => console.log(`target listening on ${host}:${server.address().port}`));
process.on("SIGTERM", () => process.exit(0));
