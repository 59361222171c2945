import { describe, expect, it } from "vitest";
import { seededRandom } from "../test-support/seeded-random.js";
import type { HeaderSelection } from "./response-parser.js";
import { ResponseParser } from "./response-parser.js";

type Event =
  | { head: number; text: string; headers: string[]; bytes: number }
  | { end: boolean }
  | { body: string }
  | { error: string };

/**
 * A parser that reads one response per `expectResponse`, as a connection's does, and its reports;
 * the heads' bytes, when asked for, go to `heads`.
 */
function connectionParser(heads: (Buffer | null)[] = []) {
  const events: Event[] = [];
  const parser = new ResponseParser(
    {
      onResponseHead: (head, text, headers, bytes, raw) => {
        heads.push(raw);
        events.push({ head, text, headers: [...headers], bytes });
      },
      onResponseBody: (bytes, start, end) => events.push({ body: bytes.toString("latin1", start, end) }),
      onResponseEnd: (end) => events.push({ end }),
      onParseError: (error) => events.push({ error }),
    },
    true,
  );
  return { parser, events };
}

/** What a parser that has read nothing before reports for `response`. */
function fresh(response: string, selection: HeaderSelection): Event[] {
  const { parser, events } = connectionParser();
  parser.expectResponse(false, selection);
  parser.execute(Buffer.from(response, "latin1"));
  return events;
}

const NGINX = (length: number, date = "Sat, 05 Dec 2026 12:00:00 GMT") =>
  `HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: ${date}\r\nContent-Type: text/plain\r\nContent-Length: ${length}\r\nConnection: keep-alive\r\n\r\n${"x".repeat(length)}`;

describe("a remembered head stands in for the scan only when it is the same head", () => {
  it("a head of the same length that differs in one byte is read again: the new length frames the body", () => {
    const { parser, events } = connectionParser();
    for (const response of [NGINX(11), NGINX(11), NGINX(12), NGINX(11)]) {
      parser.expectResponse(false, false);
      events.length = 0;
      parser.execute(Buffer.from(response, "latin1"));
      expect(events).toEqual(fresh(response, false));
    }
  });

  it("a malformed head the length of a remembered one is refused", () => {
    const { parser, events } = connectionParser();
    parser.expectResponse(false, false);
    parser.execute(Buffer.from(NGINX(11), "latin1"));
    const bad = NGINX(11).replace("Server: nginx", "Server: ngi\x01x");
    parser.expectResponse(false, false);
    events.length = 0;
    parser.execute(Buffer.from(bad, "latin1"));
    expect(events).toEqual([{ error: expect.stringMatching(/^a malformed header/) }]);
  });

  it("read with another header selection, the same head hands over its strings", () => {
    const { parser, events } = connectionParser();
    parser.expectResponse(false, false);
    parser.execute(Buffer.from(NGINX(3), "latin1"));
    for (const selection of [["server"], true, false] as HeaderSelection[]) {
      parser.expectResponse(false, selection);
      events.length = 0;
      parser.execute(Buffer.from(NGINX(3), "latin1"));
      expect(events).toEqual(fresh(NGINX(3), selection));
    }
    expect(fresh(NGINX(3), ["server"])[0]).toMatchObject({ headers: ["Server", "nginx"] });
  });

  it("a HEAD request's answer to a remembered head has no body", () => {
    const { parser, events } = connectionParser();
    parser.expectResponse(false, false);
    parser.execute(Buffer.from(NGINX(5), "latin1"));
    parser.expectResponse(true, false);
    events.length = 0;
    const head = NGINX(5).slice(0, -5);
    parser.execute(Buffer.from(head, "latin1"));
    expect(events).toEqual([{ head: 200, text: "OK", headers: [], bytes: head.length }, { end: true }]);
  });

  it("fuzz: one parser over a sequence of like heads reports what a fresh parser reports for each", () => {
    // Heads near each other: the same, a byte changed (length, status, a control character,
    // Connection: close, a version), so that equal lengths with different bytes are common.
    const variants = [
      NGINX(11),
      NGINX(12),
      NGINX(11, "Sat, 05 Dec 2026 12:00:01 GMT"),
      NGINX(11).replace("200 OK", "404 OK"),
      NGINX(11).replace("keep-alive", "close     "),
      NGINX(11).replace("HTTP/1.1", "HTTP/1.0"),
      NGINX(11).replace("nginx", "ng\x7fnx"),
      NGINX(11).replace("Content-Length", "Content-Lengtx"),
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      "HTTP/1.1 204 No Content\r\nServer: nginx\r\n\r\n",
    ];
    const selections: HeaderSelection[] = [false, false, false, ["content-length"], true];
    for (let seed = 1; seed <= 200; seed++) {
      const next = seededRandom(seed);
      const { parser, events } = connectionParser();
      for (let i = 0; i < 20; i++) {
        const response = variants[Math.floor(next() * variants.length)];
        const selection = selections[Math.floor(next() * selections.length)];
        parser.expectResponse(false, selection);
        events.length = 0;
        parser.execute(Buffer.from(response, "latin1"));
        const expected = fresh(response, selection);
        expect(events, `seed ${seed}, response ${i}`).toEqual(expected);
        // A connection carries on only after a response that ended and keeps it alive.
        if (!expected.some((event) => "end" in event && event.end)) break;
      }
    }
  });
});

describe("a kept head's bytes", () => {
  it("stay as they were while the parser reads other heads through the same read buffer", () => {
    const heads: (Buffer | null)[] = [];
    const { parser } = connectionParser(heads);
    const read = Buffer.alloc(4096); // one buffer for every read, as the engine's plain-TCP reads
    const responses = [NGINX(3), NGINX(3), NGINX(4), NGINX(3), NGINX(3).replace("nginx", "other")];
    for (const response of responses) {
      parser.expectResponse(false, false, true);
      parser.execute(read.subarray(0, read.write(response, "latin1")));
      read.fill(0x21);
    }
    expect(heads.map((head) => head?.toString("latin1"))).toEqual(
      responses.map((response) => response.slice(0, response.indexOf("\r\n\r\n"))),
    );
  });
});

describe("a read into a shared buffer", () => {
  it("is read to the end it was given: a remembered head cut short is not completed from an earlier read's bytes", () => {
    const { parser, events } = connectionParser();
    const read = Buffer.alloc(4096); // one buffer for every read, as the engine's plain-TCP reads
    const response = NGINX(3);
    const length = read.write(response, "latin1");
    for (let i = 0; i < 2; i++) {
      parser.expectResponse(false, false);
      parser.execute(read, length);
    }
    expect(events.filter((event) => "end" in event)).toHaveLength(2);
    // The same response again, read in two: the first read carries only its first 20 bytes, and
    // the rest of the remembered head (and its blank line) still lies past them in the buffer.
    events.length = 0;
    parser.expectResponse(false, false);
    read.write(response.slice(0, 20), "latin1");
    expect(parser.execute(read, 20)).toBe(20);
    expect(events).toEqual([]);
    const rest = read.write(response.slice(20), "latin1");
    parser.execute(read, rest);
    expect(events).toEqual(fresh(response, false));
  });

  it("hands over a body as the bytes up to the read's end, and no further", () => {
    const { parser, events } = connectionParser();
    const read = Buffer.alloc(4096, "y");
    const response = NGINX(5);
    parser.expectResponse(false, false);
    parser.execute(read, read.write(response.slice(0, -2), "latin1"));
    parser.execute(read, read.write(response.slice(-2), "latin1"));
    expect(events.filter((event) => "body" in event)).toEqual([{ body: "xxx" }, { body: "xx" }]);
  });
});

describe("heads that keep differing", () => {
  it("are read right, and once they settle the memo serves again", () => {
    const heads: (Buffer | null)[] = [];
    const { parser, events } = connectionParser(heads);
    const withId = (id: number) =>
      NGINX(2).replace("Server: nginx", `Server: n${String(id).padStart(5, "0")}`);
    const responses = [
      ...Array.from({ length: 300 }, (_, i) => withId(i)),
      ...Array.from({ length: 200 }, () => withId(7)),
    ];
    for (const response of responses) {
      parser.expectResponse(false, false, true);
      events.length = 0;
      parser.execute(Buffer.from(response, "latin1"));
      expect(events).toEqual(fresh(response, false));
    }
    // Served from the memo: the same remembered bytes, handed over again and again.
    const settled = heads.slice(-100);
    expect(settled.every((head) => head === settled[0])).toBe(true);
    expect(settled[0]?.toString("latin1")).toBe(withId(7).slice(0, withId(7).indexOf("\r\n\r\n")));
    // While they differed, each head had bytes of its own.
    expect(new Set(heads.slice(0, 300)).size).toBe(300);
  });
});
