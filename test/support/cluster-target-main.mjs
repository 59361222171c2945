// A counting HTTP target of several processes (node:cluster), for tests that hold more
// connections than one process may open files: each worker process keeps its share of the
// keep-alive connections. The primary answers on its own admin port: GET /counts sums every
// worker's requests, connections accepted, connections open now, and connections by client
// address. `?delay=MS` answers after MS (every VU then holds its connection at once). argv: WORKERS. Prints "target http://127.0.0.1:PORT admin http://127.0.0.1:ADMIN".
import cluster from "node:cluster";
import { createServer } from "node:http";

if (cluster.isPrimary) {
  // Each process accepts its own connections from the one shared socket. Round-robin would have
  // the primary accept every connection and hand it over one at a time: under load it held
  // thousands at once, reached its file limit, and libuv closed the connections it could not
  // keep (the clients read "other side closed").
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const workers = Number(process.argv[2] ?? 4);
  const children = Array.from({ length: workers }, () => cluster.fork());
  let asked = 0;
  const answers = new Map();
  const ask = () =>
    new Promise((resolve) => {
      const id = ++asked;
      const got = [];
      answers.set(id, (counts) => {
        got.push(counts);
        if (got.length < children.length) return;
        answers.delete(id);
        const sum = { requests: 0, accepted: 0, open: 0, bySource: {} };
        for (const c of got) {
          sum.requests += c.requests;
          sum.accepted += c.accepted;
          sum.open += c.open;
          for (const [from, n] of Object.entries(c.bySource))
            sum.bySource[from] = (sum.bySource[from] ?? 0) + n;
        }
        resolve(sum);
      });
      for (const child of children) child.send({ ask: id });
    });
  for (const child of children) child.on("message", (m) => answers.get(m.answer)?.(m.counts));
  let port = 0;
  let listening = 0;
  cluster.on("listening", (_worker, address) => {
    port = address.port;
    if (++listening < workers) return;
    const admin = createServer(async (req, res) => {
      if (req.url === "/reset") for (const child of children) child.send({ reset: true });
      const counts = req.url === "/reset" ? {} : await ask();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(counts));
    });
    admin.listen(0, "127.0.0.1", () =>
      console.log(`target http://127.0.0.1:${port} admin http://127.0.0.1:${admin.address().port}`),
    );
  });
  // Every worker shares one port: the first to listen picks it, the others are handed it.
  process.on("SIGTERM", () => {
    for (const child of children) child.process.kill("SIGKILL");
    process.exit(0);
  });
} else {
  let counts = { requests: 0, accepted: 0, open: 0, bySource: {} };
  const server = createServer((req, res) => {
    counts.requests++;
    req.resume();
    const delay = Number(/[?&]delay=(\d+)/.exec(req.url ?? "")?.[1] ?? 0);
    req.on("end", () =>
      setTimeout(() => res.writeHead(200, { "content-length": 11 }).end("hello world"), delay),
    );
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 130_000;
  server.requestTimeout = 0;
  server.on("connection", (socket) => {
    counts.accepted++;
    counts.open++;
    const from = socket.remoteAddress ?? "?";
    counts.bySource[from] = (counts.bySource[from] ?? 0) + 1;
    socket.once("close", () => counts.open--);
  });
  process.on("message", (m) => {
    if (m.ask) process.send({ answer: m.ask, counts });
    if (m.reset) counts = { requests: 0, accepted: 0, open: counts.open, bySource: {} };
  });
  server.listen(0, "127.0.0.1");
}
