import { describe, expect, it } from "vitest";
import { seededRandom } from "../test-support/seeded-random.js";
import { headerPairs } from "./head-bytes.js";
import { MAX_HEAD_BYTES, ResponseParser } from "./response-parser.js";

type Event =
  | { head: number; text: string; headers: string[] }
  | { end: boolean; body: string }
  | { error: string };

/** Feeds `pieces` and returns what the parser reported (bodies joined per response). */
function parse(pieces: Buffer[], options: { head?: boolean; close?: boolean } = {}): Event[] {
  const events: Event[] = [];
  let body: Buffer[] = [];
  const parser = new ResponseParser({
    onResponseHead: (head, text, headers, _bytes, raw) => {
      // The head's bytes, handed over beside the strings, read back to the same headers.
      expect(raw).not.toBeNull();
      expect(headerPairs(raw as Buffer)).toEqual(headers);
      events.push({ head, text, headers });
    },
    onResponseBody: (bytes, start, end) => body.push(Buffer.from(bytes.subarray(start, end))),
    onResponseEnd: (end) => {
      events.push({ end, body: Buffer.concat(body).toString("latin1") });
      body = [];
    },
    onParseError: (error) => events.push({ error }),
  });
  parser.headRequest = options.head ?? false;
  parser.keepHead = true;
  for (const piece of pieces) parser.execute(...sharedRead(piece));
  if (options.close) parser.finish();
  return events;
}

/**
 * `piece` as the engine's plain-TCP reads hand it over: the first bytes of a buffer shared by every
 * read, and what lies past them an earlier read's (here: a blank line and a whole response, to
 * mislead a parser that reads past the end it was given).
 */
function sharedRead(piece: Buffer): [Buffer, number] {
  const stale = Buffer.from("\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "latin1");
  const read = Buffer.alloc(piece.length + stale.length * 2);
  for (let at = piece.length; at < read.length; at += stale.length) stale.copy(read, at);
  piece.copy(read);
  return [read, piece.length];
}

/** Every way to cut `text` in two, and byte by byte: each must parse as the whole does. */
function everySplit(text: string, options: { head?: boolean; close?: boolean } = {}): Event[] {
  const whole = Buffer.from(text, "latin1");
  const expected = parse([whole], options);
  for (let cut = 1; cut < whole.length; cut++) {
    expect(parse([whole.subarray(0, cut), whole.subarray(cut)], options), `cut at ${cut}`).toEqual(expected);
  }
  const bytes = [...whole].map((b) => Buffer.from([b]));
  expect(parse(bytes, options), "byte by byte").toEqual(expected);
  return expected;
}

describe("ResponseParser framings, split at every byte", () => {
  it("content-length", () => {
    expect(everySplit("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello")).toEqual([
      { head: 200, text: "OK", headers: ["Content-Length", "5", "X-A", "b"] },
      { end: true, body: "hello" },
    ]);
  });

  it("chunked, with extensions and trailers", () => {
    const text =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
      "5;name=value\r\nhello\r\n" +
      "7 ; x\r\n, world\r\n" +
      "0\r\nX-Checksum: 1\r\nX-Other: 2\r\n\r\n";
    expect(everySplit(text).at(-1)).toEqual({ end: true, body: "hello, world" });
    const plain = "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n";
    expect(everySplit(plain).at(-1)).toEqual({ end: true, body: "0123456789" });
  });

  it("a body until close: HTTP/1.0, no length, or a coding other than chunked", () => {
    expect(everySplit("HTTP/1.0 200 OK\r\n\r\nuntil the end", { close: true }).at(-1)).toEqual({
      end: false,
      body: "until the end",
    });
    expect(
      everySplit("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw", { close: true }).at(-1),
    ).toEqual({ end: false, body: "raw" });
  });

  it("no body: HEAD, 204, 304; 1xx answers are skipped", () => {
    expect(everySplit("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", { head: true }).at(-1)).toEqual({
      end: true,
      body: "",
    });
    expect(everySplit("HTTP/1.1 204 No Content\r\n\r\n").at(-1)).toEqual({ end: true, body: "" });
    expect(everySplit("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n").at(-1)).toEqual({
      end: true,
      body: "",
    });
    const early = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n";
    expect(everySplit(`${early}HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok`)).toEqual([
      { head: 201, text: "Created", headers: ["Content-Length", "2"] },
      { end: true, body: "ok" },
    ]);
  });

  it("keep-alive as HTTP/1.0 and Connection: close say", () => {
    expect(everySplit("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").at(-1)).toEqual({
      end: false,
      body: "",
    });
    expect(
      everySplit("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx").at(-1),
    ).toEqual({ end: true, body: "x" });
    expect(everySplit("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx").at(-1)).toEqual({
      end: false,
      body: "x",
    });
  });

  it("several responses in one read, and an empty reason phrase", () => {
    const two = "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 \r\nContent-Length: 1\r\n\r\nb";
    expect(everySplit(two)).toEqual([
      { head: 200, text: "", headers: ["Content-Length", "1"] },
      { end: true, body: "a" },
      { head: 404, text: "", headers: ["Content-Length", "1"] },
      { end: true, body: "b" },
    ]);
  });

  it("named headers as strings, the head's bytes beside them (a script's answer: strings when read)", () => {
    const seen: Array<{ headers: string[]; pairs: string[] }> = [];
    const parser = new ResponseParser(
      {
        onResponseHead: (_status, _text, headers, _bytes, raw) =>
          seen.push({ headers, pairs: headerPairs(Buffer.from(raw as Buffer)) }),
        onResponseBody: () => {},
        onResponseEnd: () => {},
        onParseError: (error) => {
          throw new Error(error);
        },
      },
      true,
    );
    parser.expectResponse(false, ["set-cookie", "content-encoding"], true);
    parser.execute(
      Buffer.from(
        "HTTP/1.1 200 OK\r\nServer:\tx \r\nSet-Cookie: a=1\r\nX-Empty:\r\nset-cookie:  b=2 \r\nContent-Length: 0\r\n\r\n",
        "latin1",
      ),
    );
    expect(seen).toEqual([
      {
        headers: ["Set-Cookie", "a=1", "set-cookie", "b=2"],
        pairs: [
          "Server",
          "x",
          "Set-Cookie",
          "a=1",
          "X-Empty",
          "",
          "set-cookie",
          "b=2",
          "Content-Length",
          "0",
        ],
      },
    ]);
    // Without it asked, no bytes are handed over.
    const heads: Array<Buffer | null> = [];
    const plain = new ResponseParser(
      {
        onResponseHead: (_status, _text, _headers, _bytes, raw) => heads.push(raw),
        onResponseBody: () => {},
        onResponseEnd: () => {},
        onParseError: () => {},
      },
      true,
    );
    plain.expectResponse(false, false);
    plain.execute(Buffer.from("HTTP/1.1 204 No Content\r\n\r\n", "latin1"));
    expect(heads).toEqual([null]);
  });
});

describe("ResponseParser refuses what is not HTTP", () => {
  const errorOf = (text: string) => {
    const events = parse([Buffer.from(text, "latin1")]);
    const error = events.find((e) => "error" in e);
    return error && "error" in error ? error.error : null;
  };

  it("names each problem", () => {
    expect(errorOf("SSH-2.0-OpenSSH\r\n\r\n")).toMatch(/^not an HTTP\/1.x status line/);
    expect(errorOf("HTTP/2 200\r\n\r\n")).toMatch(/^not an HTTP\/1.x status line/);
    expect(errorOf("HTTP/1.1 20 OK\r\n\r\n")).toMatch(/^not an HTTP\/1.x status line/);
    // The protocol name to the byte: a control byte where "/" or "." belongs, or another case, is not HTTP.
    expect(errorOf("HTTP\x0f1.1 200 OK\r\n\r\n")).toMatch(/^not an HTTP\/1.x status line/);
    expect(errorOf("HTTP/1\x0e1 200 OK\r\n\r\n")).toMatch(/^not an HTTP\/1.x status line/);
    expect(errorOf("http/1.1 200 OK\r\n\r\n")).toMatch(/^not an HTTP\/1.x status line/);
    expect(errorOf("HTTP/1.1 200 OK\r\nno colon\r\n\r\n")).toMatch(/^a header line without a name/);
    expect(errorOf("HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n")).toMatch(/^a malformed header/);
    expect(errorOf("HTTP/1.1 200 OK\r\n folded: x\r\n\r\n")).toMatch(/^a malformed header/);
    expect(errorOf("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")).toMatch(
      /^content-length is not a number/,
    );
    expect(errorOf("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n")).toMatch(
      /^content-length is not a number/,
    );
    expect(errorOf("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")).toBe(
      "content-length is given twice with different values",
    );
    expect(errorOf("HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\n")).toBe(
      "content-length is given twice with different values",
    );
    expect(errorOf("HTTP/1.1 101 Switching Protocols\r\n\r\n")).toMatch(/^101 Switching Protocols/);
    const chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    expect(errorOf(`${chunked}zz\r\n`)).toMatch(/^a bad chunk size/);
    expect(errorOf(`${chunked}-5\r\n`)).toMatch(/^a bad chunk size/);
    expect(errorOf(`${chunked}FFFFFFFFFFFFFFFF\r\n`)).toMatch(/^a bad chunk size/);
    expect(errorOf(`${chunked}3\r\nabcX\r\n`)).toBe("chunk data is not followed by CRLF");
    expect(errorOf(`${chunked}0\r\nbad trailer\r\n\r\n`)).toMatch(/^a malformed trailer/);
    expect(errorOf(`${chunked}${"1".repeat(5000)}`)).toBe("a chunk-size line is too long");
  });

  it("a head past the limit fails as soon as the limit is passed, whole or in pieces", () => {
    const big = `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(MAX_HEAD_BYTES)}`;
    expect(errorOf(big)).toBe(`the response head is over ${MAX_HEAD_BYTES} bytes`);
    const pieces = Array.from({ length: 70 }, () => Buffer.from("x".repeat(1024)));
    const events = parse([Buffer.from("HTTP/1.1 200 OK\r\nX: "), ...pieces]);
    expect(events).toEqual([{ error: `the response head is over ${MAX_HEAD_BYTES} bytes` }]);
  });

  it("a truncated response ends nowhere: finish() says it was cut", () => {
    const parser = new ResponseParser({
      onResponseHead: () => {},
      onResponseBody: () => {},
      onResponseEnd: () => {
        throw new Error("must not end");
      },
      onParseError: () => {},
    });
    parser.execute(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
    expect(parser.inResponse).toBe(true);
    expect(parser.finish()).toBe(false);
  });
});

describe("ResponseParser fuzz", () => {
  const valid = [
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
    "HTTP/1.0 200 OK\r\n\r\nbody",
  ];

  it("garbage, truncation and mutation: parses or reports an error, never throws or loops", () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const next = seededRandom(seed);
      const base = Buffer.from(valid[seed % valid.length], "latin1");
      let input: Buffer;
      switch (seed % 4) {
        case 0: // random bytes
          input = Buffer.from(
            Array.from({ length: Math.floor(next() * 200) }, () => Math.floor(next() * 256)),
          );
          break;
        case 1: // truncated
          input = base.subarray(0, Math.floor(next() * base.length));
          break;
        case 2: {
          // a few bytes flipped
          input = Buffer.from(base);
          for (let i = 0; i < 3; i++) input[Math.floor(next() * input.length)] = Math.floor(next() * 256);
          break;
        }
        default: // bytes inserted
          input = Buffer.concat([
            base.subarray(0, Math.floor(next() * base.length)),
            Buffer.from(Array.from({ length: 5 }, () => Math.floor(next() * 256))),
            base.subarray(Math.floor(next() * base.length)),
          ]);
      }
      const cut = Math.floor(next() * (input.length + 1));
      let events: Event[] = [];
      expect(() => {
        events = parse([input.subarray(0, cut), input.subarray(cut)], { close: true });
      }, `seed ${seed}`).not.toThrow();
      // Nothing after an error; every end follows a head.
      const error = events.findIndex((e) => "error" in e);
      if (error >= 0) expect(events.length, `seed ${seed}`).toBe(error + 1);
      let open = false;
      for (const event of events) {
        if ("head" in event) open = true;
        if ("end" in event) {
          expect(open, `seed ${seed}`).toBe(true);
          open = false;
        }
      }
    }
  });
});
