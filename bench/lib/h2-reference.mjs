// The reference for `pnpm bench h2`: node's own http2 client, `--vus` streams at once on one
// session, for `--duration` seconds. Prints { requests, rps } as JSON.
import { connect } from "node:http2";

const args = process.argv.slice(2);
const get = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const url = get("url");
const vus = Number(get("vus", "50"));
const durationMs = Number(get("duration", "10")) * 1000;
const session = connect(url, { rejectUnauthorized: false });
const one = () =>
  new Promise((resolve, reject) => {
    const stream = session.request({ ":path": "/" });
    stream.on("data", () => {});
    stream.on("end", resolve);
    stream.on("error", reject);
    stream.end();
  });
let requests = 0;
const started = Date.now();
await Promise.all(
  Array.from({ length: vus }, async () => {
    while (Date.now() - started < durationMs) {
      await one();
      requests++;
    }
  }),
);
session.close();
process.stdout.write(JSON.stringify({ requests, rps: requests / ((Date.now() - started) / 1000) }));
