import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** The PostgreSQL server CI and every session machine run (trust auth). */
export const PG_ADMIN_URL = process.env.VOLLEY_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  kind: "sqlite" | "postgresql";
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of each kind, dropped afterwards. */
export async function createTestDatabase(kind: "sqlite" | "postgresql"): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "volley-db-"));
    return {
      kind,
      url: `file:${join(dir, "volley.db")}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `volley_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
