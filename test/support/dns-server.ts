import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";

/** A DNS server on loopback (UDP) answering A records from a table it counts questions for. */
export interface TestDns {
  /** `127.0.0.1:PORT`, as `http.dns.servers` takes it. */
  server: string;
  /** Names to IPv4 addresses; change it to change the answers. */
  records: Map<string, string[]>;
  /** A questions asked, by name. */
  asked: Map<string, number>;
  close(): Promise<void>;
}

const A = 1;

/** Answers A questions from `records` (TTL `ttlS`), NOERROR with no answer for other types, NXDOMAIN for unknown names. */
export async function startTestDns(ttlS = 1): Promise<TestDns> {
  const socket = createSocket("udp4");
  const state: TestDns = {
    server: "",
    records: new Map(),
    asked: new Map(),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
  socket.on("message", (query, from) => {
    // Header (12 bytes), then one question: labels, type, class.
    let at = 12;
    const labels: string[] = [];
    while (query[at] !== 0 && at < query.length) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]).toString("latin1"));
      at += query[at] + 1;
    }
    const questionEnd = at + 5;
    const type = query.readUInt16BE(at + 1);
    const name = labels.join(".").toLowerCase();
    if (type === A) state.asked.set(name, (state.asked.get(name) ?? 0) + 1);
    const known = state.records.get(name);
    const answers = type === A ? (known ?? []) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the id
    header.writeUInt16BE(known === undefined ? 0x8183 : 0x8180, 2); // a response; NXDOMAIN or not
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the question's name
      record.writeUInt16BE(A, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(ttlS, 6);
      record.writeUInt16BE(4, 10);
      Buffer.from(address.split(".").map(Number)).copy(record, 12);
      return record;
    });
    socket.send(
      Buffer.concat([header, query.subarray(12, questionEnd), ...records]),
      from.port,
      from.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  state.server = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return state;
}
