// Prisma CLI configuration for the SQLite variant: the JS (Wasm) schema engine over the
// better-sqlite3 driver adapter, so migrations run without downloading native engines.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "../../prisma/generated/sqlite/schema.prisma",
  migrations: { path: "../../prisma/migrations/sqlite" },
  adapter: async () => new PrismaBetterSQLite3({ url: process.env.DATABASE_URL ?? "file:./data/volley.db" }),
});
