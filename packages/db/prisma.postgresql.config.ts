// Prisma CLI configuration for the PostgreSQL variant (JS schema engine over node-postgres).
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "../../prisma/generated/postgresql/schema.prisma",
  migrations: { path: "../../prisma/migrations/postgresql" },
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "" }),
});
