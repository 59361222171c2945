import type { DbClient } from "./db-client.js";
import { RunAggregateRepository } from "./run-aggregates.js";
import { RunSecondRepository } from "./run-seconds.js";
import { RunWorkerRepository } from "./run-workers.js";
import { RunRepository } from "./runs.js";

export type { DbClient } from "./db-client.js";

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
