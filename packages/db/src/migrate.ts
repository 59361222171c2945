import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A connection the migration runner can drive: one statement batch, or a query returning rows. */
export interface MigrationConnection {
  provider: "sqlite" | "postgresql";
  execute(sql: string): Promise<void>;
  query(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Prisma's migration table, so `prisma migrate status` reads our history as its own. */
const MIGRATIONS_TABLE: Record<MigrationConnection["provider"], string> = {
  postgresql: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
    "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
};

/** Prisma's own advisory lock id, so a `prisma migrate deploy` and a master never migrate at once. */
const PG_LOCK_ID = 72707369;

export function loadMigrations(folder: string): Migration[] {
  if (!existsSync(folder)) throw new Error(`no migrations folder at ${folder}`);
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d{4}_/.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(folder, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/**
 * Applies the migrations Prisma generated (prisma/generate.mjs) that the database lacks, each in
 * its own transaction, recording them in `_prisma_migrations`. It runs on every master start.
 * Prisma's CLI cannot do this here: its native engine cannot be downloaded and its Wasm engine
 * fails on PostgreSQL through adapter-pg (prisma/orm#27403).
 */
export async function applyMigrations(
  connection: MigrationConnection,
  migrations: Migration[],
): Promise<string[]> {
  const applied: string[] = [];
  const pg = connection.provider === "postgresql";
  if (pg) await connection.query(`SELECT pg_advisory_lock(${PG_LOCK_ID})`, []);
  try {
    await connection.execute(MIGRATIONS_TABLE[connection.provider]);
    const rows = await connection.query(
      `SELECT "migration_name", "checksum" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
      [],
    );
    const done = new Map(rows.map((row) => [String(row.migration_name), String(row.checksum)]));
    for (const migration of migrations) {
      const checksum = done.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was changed after it was applied (checksum differs)`);
        }
        continue;
      }
      // SQLite redefines tables by copy, drop and rename. With foreign keys on, the DROP would
      // cascade-delete every child row; the pragma only takes effect outside a transaction.
      if (!pg) await connection.execute("PRAGMA foreign_keys = OFF");
      await connection.execute(pg ? "BEGIN" : "BEGIN IMMEDIATE");
      try {
        await connection.execute(migration.sql);
        if (!pg) {
          const broken = await connection.query("PRAGMA foreign_key_check", []);
          if (broken.length) throw new Error(`foreign keys broken: ${JSON.stringify(broken.slice(0, 3))}`);
        }
        const now = new Date().toISOString();
        await connection.query(
          pg
            ? `INSERT INTO "_prisma_migrations" ("id","checksum","finished_at","migration_name","started_at","applied_steps_count") VALUES ($1,$2,$3,$4,$5,1)`
            : `INSERT INTO "_prisma_migrations" ("id","checksum","finished_at","migration_name","started_at","applied_steps_count") VALUES (?,?,?,?,?,1)`,
          [randomUUID(), migration.checksum, now, migration.name, now],
        );
        await connection.execute("COMMIT");
      } catch (error) {
        await connection.execute("ROLLBACK");
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      } finally {
        if (!pg) await connection.execute("PRAGMA foreign_keys = ON");
      }
      applied.push(migration.name);
    }
  } finally {
    if (pg) await connection.query(`SELECT pg_advisory_unlock(${PG_LOCK_ID})`, []);
  }
  return applied;
}
