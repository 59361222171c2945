import type { PrismaClient } from "../generated/sqlite/client.js";

/**
 * Both generated clients have the same model API; repositories are typed against the SQLite one
 * and get whichever the URL chose.
 */
export type DbClient = PrismaClient;

/** The database a URL chose: its SQL differs where a repository writes SQL of its own. */
export type DatabaseProvider = "sqlite" | "postgresql";
