#!/usr/bin/env node
// Derives the SQLite and PostgreSQL variants of prisma/schema.prisma, generates both clients,
// and with `--migration NAME` writes the next migration of each from the schema's last snapshot.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const prismaBin = join(root, "../packages/db/node_modules/.bin/prisma");
const source = readFileSync(join(root, "schema.prisma"), "utf8");
const HEADER = "// GENERATED from prisma/schema.prisma by prisma/generate.mjs: do not edit.\n";

const VARIANTS = {
  postgresql: { url: "postgresql://volley@127.0.0.1:5432/volley" },
  sqlite: { url: "file:./volley.db" },
};
// The JS schema engine diffs through a live connection, even from an empty schema.
const DIFF_DATABASES = {
  postgresql: process.env.VOLLEY_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
  sqlite: `file:${join(tmpdir(), `volley-diff-${process.pid}.db`)}`,
};

function variantSchema(provider) {
  return (
    HEADER +
    source
      .replace('provider = "postgresql"', `provider = "${provider}"`)
      // A literal URL: prisma generate needs one that resolves (see the stack notes).
      .replace('url      = env("DATABASE_URL")', `url      = "${VARIANTS[provider].url}"`)
      .replace(
        'output              = "../packages/db/src/generated/postgresql"',
        `output              = "../../../packages/db/src/generated/${provider}"`,
      )
  );
}

const migrationName = process.argv.includes("--migration")
  ? process.argv[process.argv.indexOf("--migration") + 1]
  : null;

for (const provider of Object.keys(VARIANTS)) {
  const dir = join(root, "generated", provider);
  mkdirSync(dir, { recursive: true });
  const schemaPath = join(dir, "schema.prisma");
  const schema = variantSchema(provider);
  writeFileSync(schemaPath, schema);
  const config = join(root, `../packages/db/prisma.${provider}.config.ts`);
  execFileSync(prismaBin, ["generate", "--config", config], {
    stdio: ["ignore", "ignore", "inherit"],
    cwd: dirname(config),
  });

  if (migrationName) {
    const migrations = join(root, "migrations", provider);
    mkdirSync(migrations, { recursive: true });
    const snapshot = join(migrations, "schema.snapshot.prisma");
    const from = existsSync(snapshot) ? ["--from-schema-datamodel", snapshot] : ["--from-empty"];
    const sql = execFileSync(
      prismaBin,
      ["migrate", "diff", "--config", config, ...from, "--to-schema-datamodel", schemaPath, "--script"],
      {
        encoding: "utf8",
        cwd: dirname(config),
        env: { ...process.env, DATABASE_URL: DIFF_DATABASES[provider] },
      },
    );
    const index = String(readdirSync(migrations).filter((f) => /^\d{4}_/.test(f)).length + 1).padStart(
      4,
      "0",
    );
    const folder = join(migrations, `${index}_${migrationName}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "migration.sql"), sql);
    writeFileSync(snapshot, schema);
    console.log(`wrote ${folder}/migration.sql`);
  }
}
