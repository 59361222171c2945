import type { PrismaClient } from "../generated/sqlite/client.js";
import { RunAggregateRepository } from "./run-aggregates.js";
import { RunSecondRepository } from "./run-seconds.js";
import { RunWorkerRepository } from "./run-workers.js";
import { RunRepository } from "./runs.js";

/**
 * Both generated clients have the same model API; repositories are typed against the SQLite one
 * and get whichever the URL chose.
 */
export type DbClient = PrismaClient;

export interface Repositories {
  runs: RunRepository;
  runWorkers: RunWorkerRepository;
  seconds: RunSecondRepository;
  aggregates: RunAggregateRepository;
}

export function createRepositories(client: DbClient): Repositories {
  return {
    runs: new RunRepository(client),
    runWorkers: new RunWorkerRepository(client),
    seconds: new RunSecondRepository(client),
    aggregates: new RunAggregateRepository(client),
  };
}
