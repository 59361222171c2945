// pnpm bench parser [--against DIR] [--rounds 7] [--count 1000000]
// The HTTP/1.1 response parser alone, a million responses in a loop on one core, no socket:
// nginx's head read declaratively (no header strings), the same head kept by a script's answer
// (the listener keeps the head's bytes, as script-request.ts does), and heads that all differ (a
// request id in each, so none can be remembered). With --against DIR (a built checkout of another
// Volley version, e.g. a `git worktree` of an earlier commit with `pnpm build` run in it), its
// parser runs the same cases in the same process, the two interleaved round by round, and the
// table gives each case's ratio. Before the head memo the script's listener copied the head
// itself: the copy is made here for a build that hands over a view of the read.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { arg, fmt, ROOT, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const rounds = Number(arg(args, "rounds", "7"));
const count = Number(arg(args, "count", "1000000"));
const against = arg(args, "against", "");

const parserOf = async (dir) =>
  (await import(pathToFileURL(join(dir, "packages/engine/dist/http/response-parser.js")).href))
    .ResponseParser;
const builds = { HEAD: await parserOf(ROOT), ...(against ? { against: await parserOf(against) } : {}) };

const nginx = (id) =>
  `HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sat, 05 Dec 2026 12:00:00 GMT\r\n${id === undefined ? "" : `X-Request-Id: ${String(id).padStart(8, "0")}\r\n`}Content-Type: text/plain\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\nhello world`;
// One read buffer for every response, as the engine's plain-TCP reads share one.
const read = Buffer.alloc(4096);
const same = [Buffer.from(nginx(), "latin1")];
const differing = Array.from({ length: 1000 }, (_, i) => Buffer.from(nginx(i), "latin1"));
const CASES = {
  declarative: { responses: same, keepHead: false },
  "kept by a script": { responses: same, keepHead: true },
  "all heads differ": { responses: differing, keepHead: false },
};
const ENGINE_READS = ["set-cookie", "content-encoding"];

/** ns per response of `count` responses through one parser of `Parser`. */
function measure(Parser, { responses, keepHead }, inPlace) {
  let kept = null;
  const parser = new Parser(
    {
      onResponseHead: (_status, _text, _headers, _bytes, head) => {
        // A build whose head is a view of the read: the script's answer copies it.
        kept = head === null ? null : head.buffer === read.buffer ? Buffer.from(head) : head;
      },
      onResponseBody() {},
      onResponseEnd() {},
      onParseError(message) {
        throw new Error(message);
      },
    },
    true,
  );
  const chunks = responses.map((response) => read.subarray(0, response.copy(read)));
  const lengths = responses.map((response) => response.length);
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const response = responses[i % responses.length];
    if (responses.length > 1) response.copy(read);
    parser.expectResponse(false, keepHead ? ENGINE_READS : false, keepHead);
    // This build reads the shared buffer up to the read's end, as its connection hands it over;
    // an earlier one (--against) is given a view of the read, as its connection cut one.
    if (inPlace) parser.execute(read, lengths[i % lengths.length]);
    else parser.execute(chunks[i % chunks.length]);
  }
  if (keepHead && kept === null) throw new Error("no head was kept");
  return Number(process.hrtime.bigint() - started) / count;
}

const results = {};
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(builds);
  for (const name of round % 2 ? names.reverse() : names) {
    for (const [label, spec] of Object.entries(CASES)) {
      results[label] ??= {};
      results[label][name] ??= [];
      results[label][name].push(measure(builds[name], spec, name === "HEAD"));
    }
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const header = [
  "responses",
  "HEAD ns/response",
  ...(against ? ["against ns/response", "HEAD ÷ against"] : []),
];
console.log(`${fmt(count)} responses a case, median of ${rounds} rounds\n`);
console.log(
  table([
    header,
    ...Object.entries(results).map(([label, byBuild]) => [
      label,
      median(byBuild.HEAD).toFixed(0),
      ...(against
        ? [median(byBuild.against).toFixed(0), (median(byBuild.HEAD) / median(byBuild.against)).toFixed(2)]
        : []),
    ]),
  ]),
);
