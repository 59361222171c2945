import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { retryingWhileBusy, retryWhileBusy } from "./busy-retry.js";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client.js";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.js";
import { applyMigrations, loadMigrations, type MigrationConnection } from "./migrate.js";
import {
  createRepositories,
  type DatabaseProvider,
  type DbClient,
  type Repositories,
} from "./repositories/index.js";
import { sqliteAdapter } from "./sqlite-adapter.js";

export type { DatabaseProvider };

export interface Database extends Repositories {
  provider: DatabaseProvider;
  /** Where the data is, without credentials. */
  location: string;
  /** Runs `work` in one transaction with repositories bound to it. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /** True when the database answers but refuses writes (PostgreSQL read-only, a standby). */
  readOnly(): Promise<boolean>;
  /** Bytes the data takes (SQLite: pages in use; PostgreSQL: the database, dead rows included until vacuumed). */
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `file:./data/volley.db` (SQLite) or `postgresql://...`. */
  url: string;
  /** Folder of the migrations; defaults to the ones shipped with this package. */
  migrationsFolder?: string;
  /** SQLite: how long a call waits (asynchronously) for a locked database. @defaultValue 5000 */
  busyRetryMs?: number;
}

// prisma/migrations of the repository (the Docker image keeps the same layout).
const SHIPPED_MIGRATIONS = fileURLToPath(new URL("../../../prisma/migrations", import.meta.url));

export function providerOf(url: string): DatabaseProvider {
  if (url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgresql://") || url.startsWith("postgres://")) return "postgresql";
  throw new Error(
    `DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL), got "${redact(url)}"`,
  );
}

/** Opens the database, applies pending migrations, and returns the repositories over it. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const provider = providerOf(options.url);
  const folder = resolve(options.migrationsFolder ?? SHIPPED_MIGRATIONS, provider);
  const migrations = loadMigrations(folder);
  return provider === "sqlite"
    ? openSqlite(options.url, migrations, options.busyRetryMs ?? 5000)
    : openPostgres(options.url, migrations);
}

async function openSqlite(
  url: string,
  migrations: ReturnType<typeof loadMigrations>,
  busyRetryMs: number,
): Promise<Database> {
  const file = sqliteFile(url);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  // WAL lets the dashboard read while the stats pipeline writes; NORMAL sync is durable across
  // process crashes (only an OS crash can lose the last transactions).
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  const connection: MigrationConnection = {
    provider: "sqlite",
    execute: async (sql) => {
      raw.exec(sql);
    },
    query: async (sql, params) => {
      const statement = raw.prepare(sql);
      if (statement.reader) return statement.all(...params) as Array<Record<string, unknown>>;
      statement.run(...params);
      return [];
    },
  };
  await applyMigrations(connection, migrations);
  raw.close();
  // No busy timeout: a locked database must not block the event loop (see busy-retry.ts).
  const client = new SqliteClient({ adapter: sqliteAdapter(`file:${file}`) });
  await client.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  const database = wrap("sqlite", file, client as unknown as DbClient, {
    sizeBytes: async () => {
      const rows = (await client.$queryRawUnsafe(
        // Pages in use: merged batches are deleted, and their pages are reused rather than returned.
        "SELECT (page_count - freelist_count) * page_size AS size FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()",
      )) as Array<{ size: number | bigint }>;
      return Number(rows[0]?.size ?? 0);
    },
    readOnly: async () => false,
  });
  return {
    ...database,
    ...createRepositories(client as unknown as DbClient, "sqlite", (repository) =>
      retryingWhileBusy(repository, busyRetryMs),
    ),
    transaction: (work) => retryWhileBusy(() => database.transaction(work), busyRetryMs),
  };
}

async function openPostgres(url: string, migrations: ReturnType<typeof loadMigrations>): Promise<Database> {
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  try {
    await applyMigrations(
      {
        provider: "postgresql",
        execute: async (sql) => {
          await raw.query(sql);
        },
        query: async (sql, params) => (await raw.query(sql, params)).rows,
      },
      migrations,
    );
  } finally {
    await raw.end();
  }
  const client = new PostgresClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) });
  return wrap("postgresql", redact(url), client as unknown as DbClient, {
    sizeBytes: async () => {
      const rows = (await client.$queryRawUnsafe(
        "SELECT pg_database_size(current_database())::bigint AS size",
      )) as Array<{ size: number | bigint }>;
      return Number(rows[0]?.size ?? 0);
    },
    readOnly: async () => {
      const rows = (await client.$queryRawUnsafe("SHOW transaction_read_only")) as Array<{
        transaction_read_only: string;
      }>;
      return rows[0]?.transaction_read_only === "on";
    },
  });
}

function wrap(
  provider: DatabaseProvider,
  location: string,
  client: DbClient,
  probes: Pick<Database, "sizeBytes" | "readOnly">,
): Database {
  return {
    provider,
    location,
    ...createRepositories(client, provider),
    transaction: (work) =>
      client.$transaction((tx) => work(createRepositories(tx as unknown as DbClient, provider)), {
        timeout: 60_000,
        maxWait: 30_000,
      }),
    ping: async () => {
      await client.$queryRawUnsafe("SELECT 1");
    },
    ...probes,
    close: () => client.$disconnect(),
  };
}

function sqliteFile(url: string): string {
  const path = url.slice("file:".length).split("?")[0];
  if (path === ":memory:") return path;
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}

/** The URL without its password. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}
