import type { PrismaClient } from "../generated/sqlite/client.js";

/**
 * Both generated clients have the same model API; repositories are typed against the SQLite one
 * and get whichever the URL chose.
 */
export type DbClient = PrismaClient;
