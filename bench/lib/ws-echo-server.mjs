// A ws echo server on loopback (run pinned to its own core): prints its port, then echoes
// every message until stdin closes.
import { WebSocketServer } from "ws";

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
wss.on("connection", (socket) => socket.on("message", (data, binary) => socket.send(data, { binary })));
wss.on("listening", () => process.stdout.write(`${wss.address().port}\n`));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
