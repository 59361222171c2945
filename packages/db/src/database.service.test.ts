import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/databases.js";
import { type Database, openDatabase, providerOf, redact } from "./open-database.js";
import { RunFileRepository } from "./repositories/run-files.js";
import { RunNotOwnedError } from "./repositories/runs.js";

// The same suite runs on SQLite and on the machine's PostgreSQL.
describe.each(["sqlite", "postgresql"] as const)("database on %s", (kind) => {
  let target: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    target = await createTestDatabase(kind);
    db = await openDatabase({ url: target.url });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });

  const newRun = (id: string, name = "checkout", status = "finished") => ({
    id,
    name,
    status,
    executor: "constant-vus",
    scenario: "{}",
    plannedDurationMs: 1000,
  });

  it("opens again without applying migrations twice", async () => {
    await db.close();
    db = await openDatabase({ url: target.url });
    expect(db.provider).toBe(kind);
    await db.ping();
  });

  it("lists runs newest first with a cursor, a name filter and a status filter", async () => {
    for (let i = 1; i <= 5; i++) await db.runs.create(newRun(`r0${i}`, i % 2 ? "checkout" : "browse"));
    await db.runs.update("r05", { status: "running" });
    const first = await db.runs.list({ limit: 2 });
    expect(first.map((r) => r.id)).toEqual(["r05", "r04"]);
    const next = await db.runs.list({ limit: 2, cursor: "r04" });
    expect(next.map((r) => r.id)).toEqual(["r03", "r02"]);
    expect((await db.runs.list({ limit: 10, name: "brow" })).map((r) => r.id)).toEqual(["r04", "r02"]);
    expect((await db.runs.list({ limit: 10, status: "running" })).map((r) => r.id)).toEqual(["r05"]);
    expect((await db.runs.listActive()).map((r) => r.id)).toEqual(["r05"]);
  });

  it("keeps large counts exact", async () => {
    await db.runs.create(newRun("rbig"));
    await db.runs.update("rbig", { requests: 2 ** 40 + 1, startAt: 1_790_000_000_123.5 });
    const run = await db.runs.get("rbig");
    expect(run?.requests).toBe(2 ** 40 + 1);
    expect(run?.startAt).toBe(1_790_000_000_123.5);
  });

  it("gives a run to one master at a time: claim, renew, fenced updates", async () => {
    await db.runs.create({ ...newRun("rown", "owned", "running"), owner: "a:1", leaseUntil: 10_000 });
    // B cannot take a run whose owner's lease runs; A renews it.
    expect(await db.runs.claim("rown", "b:2", 5_000, 20_000)).toBe(false);
    expect(await db.runs.renewLease("rown", "a:1", 30_000)).toBe(true);
    await db.runs.updateOwned("rown", "a:1", { requests: 5 });
    await expect(db.runs.updateOwned("rown", "b:2", { requests: 99 })).rejects.toBeInstanceOf(
      RunNotOwnedError,
    );
    // Once the lease ran out, B takes it; A can neither renew nor write any more.
    expect(await db.runs.claim("rown", "b:2", 30_001, 45_000)).toBe(true);
    expect(await db.runs.renewLease("rown", "a:1", 60_000)).toBe(false);
    await expect(
      db.transaction(async (tx) => {
        await tx.runs.update("rown", { failures: 1 });
        await tx.runs.updateOwned("rown", "a:1", { requests: 7 });
      }),
    ).rejects.toBeInstanceOf(RunNotOwnedError);
    expect(await db.runs.get("rown")).toMatchObject({
      owner: "b:2",
      leaseUntil: 45_000,
      requests: 5,
      failures: 0,
    });
    // The same master (a restart under the same id) claims its own run at once; an ended run is nobody's.
    expect(await db.runs.claim("rown", "b:2", 0, 50_000)).toBe(true);
    await db.runs.update("rown", { status: "finished" });
    expect(await db.runs.claim("rown", "b:2", 0, 60_000)).toBe(false);
  });

  it("rolls a failed transaction back whole", async () => {
    const second = {
      runId: "rtx",
      name: "",
      second: 0,
      requests: 1,
      failures: 0,
      vus: 1,
      p50Ms: null,
      p95Ms: null,
      p99Ms: null,
    };
    await expect(
      db.transaction(async (tx) => {
        await tx.runs.create(newRun("rtx"));
        await tx.seconds.insertMany([second]);
        // The same second twice breaks the primary key: nothing of the transaction may stay.
        await tx.seconds.insertMany([second]);
      }),
    ).rejects.toThrow();
    expect(await db.runs.get("rtx")).toBeNull();
  });

  it("keeps a run's workers and their merge watermarks", async () => {
    await db.runs.create(newRun("rb"));
    await db.runWorkers.createMany([
      { runId: "rb", workerId: "w1", name: "w1", host: "h", threads: 2, vus: 10, status: "running" },
    ]);
    await db.runWorkers.update("rb", "w1", { mergedBelow: 2, mergedAbove: "[3]", requests: 12.5 });
    expect((await db.runWorkers.list("rb"))[0]).toMatchObject({
      mergedBelow: 2,
      mergedAbove: "[3]",
      requests: 12.5,
    });
    await db.runs.update("rb", { mergeState: '{"workers":{}}' });
    expect((await db.runs.get("rb"))?.mergeState).toBe('{"workers":{}}');
  });

  it("keeps a run's files compressed and gives them back byte for byte", async () => {
    await db.runs.create(newRun("rf"));
    const csv = `email\n${"someone@example.test\n".repeat(10_000)}`;
    const binary = Buffer.from([0, 255, 1, 254, 0x1f, 0x8b]);
    await db.files.saveMany(
      "rf",
      await RunFileRepository.pack([
        { kind: "feeder", name: "users.csv", content: Buffer.from(csv) },
        { kind: "attachment", name: "blob.bin", content: binary },
      ]),
    );
    expect(await db.files.list("rf")).toEqual([
      { kind: "attachment", name: "blob.bin", bytes: 6 },
      { kind: "feeder", name: "users.csv", bytes: csv.length },
    ]);
    const back = Object.fromEntries((await db.files.contents("rf")).map((f) => [f.name, f.content]));
    expect(back["users.csv"].toString()).toBe(csv);
    expect(back["blob.bin"].equals(binary)).toBe(true);
    expect(await db.files.list("none")).toEqual([]);
  });

  it("writes time series and adds late counts to a second", async () => {
    await db.runs.create(newRun("rs"));
    await db.seconds.insertMany([
      { runId: "rs", name: "", second: 0, requests: 10, failures: 1, vus: 3, p50Ms: 1.5, p95Ms: 2, p99Ms: 3 },
      {
        runId: "rs",
        name: "login",
        second: 0,
        requests: 10,
        failures: 1,
        vus: 3,
        p50Ms: 1.5,
        p95Ms: 2,
        p99Ms: 3,
      },
    ]);
    await db.seconds.addLate({ runId: "rs", name: "", second: 0, requests: 5, failures: 2 });
    await db.seconds.addLate({ runId: "rs", name: "", second: 7, requests: 1, failures: 0 });
    const rows = await db.seconds.list("rs");
    expect(rows.map((r) => [r.name, r.second, r.requests, r.failures, r.p95Ms])).toEqual([
      ["", 0, 15, 3, 2],
      ["login", 0, 10, 1, 2],
      ["", 7, 1, 0, null],
    ]);
  });

  it("reads the seconds' statistics byte for byte: the whole run's and the names' apart", async () => {
    await db.runs.create(newRun("rbytes"));
    const bytes = (seed: number) => Uint8Array.from({ length: 300 }, (_, i) => (i * seed) % 256);
    const row = (name: string, second: number, stats: Uint8Array<ArrayBuffer> | null) => ({
      runId: "rbytes",
      name,
      second,
      requests: 1,
      failures: 0,
      vus: 1,
      p50Ms: 1,
      p95Ms: 1,
      p99Ms: 1,
      stats,
    });
    await db.seconds.insertMany([
      row("", 1, bytes(3)),
      row("a", 1, bytes(5)),
      row("", 0, bytes(7)),
      row("a", 0, bytes(11)),
      row("b", 0, null),
      row("a", 2, bytes(13)),
    ]);
    const run = await db.seconds.statsBySecond("rbytes", "run");
    expect(run.map((r) => r.second)).toEqual([0, 1]);
    expect(Buffer.from(run[0].stats).equals(Buffer.from(bytes(7)))).toBe(true);
    expect(Buffer.from(run[1].stats).equals(Buffer.from(bytes(3)))).toBe(true);
    const names = await db.seconds.statsBySecond("rbytes", "names");
    expect(names.map((r) => r.second)).toEqual([0, 1, 2]);
    const window = await db.seconds.statsBetween("rbytes", 0, 2);
    expect(window.map((stats) => Buffer.from(stats).toString("hex"))).toEqual(
      [bytes(11), bytes(5)].map((b) => Buffer.from(b).toString("hex")),
    );
    // The time series is read without the statistics.
    expect((await db.seconds.list("rbytes")).every((r) => !("stats" in r))).toBe(true);
  });

  it("replaces a run's aggregates in place", async () => {
    await db.runs.create(newRun("rr"));
    await db.aggregates.replace("rr", [{ runId: "rr", name: "a", method: "GET", stats: "1", rank: 0 }]);
    await db.aggregates.replace("rr", [
      { runId: "rr", name: "a", method: "GET", stats: "2", rank: 0 },
      { runId: "rr", name: "b", method: "GET", stats: "3", rank: 1 },
    ]);
    expect((await db.aggregates.list("rr")).map((a) => [a.name, a.stats])).toEqual([
      ["a", "2"],
      ["b", "3"],
    ]);
    expect(await db.sizeBytes()).toBeGreaterThan(0);
  });
});

describe("openDatabase", () => {
  it("names the provider from the URL and rejects others", () => {
    expect(providerOf("file:./data/volley.db")).toBe("sqlite");
    expect(providerOf("postgresql://u:p@h/db")).toBe("postgresql");
    expect(() => providerOf("mysql://u:secret@h/db")).toThrow(/file: \(SQLite\) or postgresql:\/\//);
    expect(() => providerOf("mysql://u:secret@h/db")).not.toThrow(/secret/);
    expect(redact("postgresql://u:secret@h/db")).toBe("postgresql://u:***@h/db");
  });

  it("refuses a migration that changed after it was applied", async () => {
    const dir = mkdtempSync(join(tmpdir(), "volley-mig-"));
    const folder = join(dir, "sqlite", "0001_a");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "migration.sql"), 'CREATE TABLE "t" ("a" INTEGER);');
    const url = `file:${join(dir, "x.db")}`;
    await (await openDatabase({ url, migrationsFolder: dir })).close();
    writeFileSync(join(folder, "migration.sql"), 'CREATE TABLE "t" ("b" INTEGER);');
    await expect(openDatabase({ url, migrationsFolder: dir })).rejects.toThrow(/0001_a was changed/);
  });
});

describe("SQLite migrations", () => {
  it("keep every child row when a migration redefines a parent table (copy, drop, rename)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "volley-upgrade-"));
    const write = (name: string, sql: string) => {
      mkdirSync(join(dir, "sqlite", name), { recursive: true });
      writeFileSync(join(dir, "sqlite", name, "migration.sql"), sql);
    };
    write(
      "0001_a",
      `CREATE TABLE "Parent" ("id" TEXT NOT NULL PRIMARY KEY);
       CREATE TABLE "Child" ("id" TEXT NOT NULL PRIMARY KEY, "parentId" TEXT NOT NULL,
         CONSTRAINT "Child_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Parent" ("id") ON DELETE CASCADE);
       INSERT INTO "Parent" VALUES ('p1'); INSERT INTO "Child" VALUES ('c1', 'p1');`,
    );
    const url = `file:${join(dir, "upgrade.db")}`;
    await (await openDatabase({ url, migrationsFolder: dir })).close();
    // What Prisma generates for SQLite when a column is added to a referenced table.
    write(
      "0002_b",
      `PRAGMA defer_foreign_keys=ON; PRAGMA foreign_keys=OFF;
       CREATE TABLE "new_Parent" ("id" TEXT NOT NULL PRIMARY KEY, "note" TEXT NOT NULL DEFAULT '');
       INSERT INTO "new_Parent" ("id") SELECT "id" FROM "Parent";
       DROP TABLE "Parent"; ALTER TABLE "new_Parent" RENAME TO "Parent";
       PRAGMA foreign_keys=ON; PRAGMA defer_foreign_keys=OFF;`,
    );
    await (await openDatabase({ url, migrationsFolder: dir })).close();
    const BetterSqlite3 = (await import("better-sqlite3")).default;
    const raw = new BetterSqlite3(join(dir, "upgrade.db"));
    try {
      expect(raw.prepare('SELECT "id" FROM "Child"').all()).toEqual([{ id: "c1" }]);
      expect(raw.prepare('SELECT "note" FROM "Parent"').all()).toEqual([{ note: "" }]);
    } finally {
      raw.close();
    }
  });
});
