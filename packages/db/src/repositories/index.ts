import { ApiTokenRepository } from "./api-tokens.js";
import { AuditRepository } from "./audit.js";
import type { DatabaseProvider, DbClient } from "./db-client.js";
import { RunAggregateRepository } from "./run-aggregates.js";
import { RunFileRepository } from "./run-files.js";
import { RunSecondRepository } from "./run-seconds.js";
import { RunWorkerRepository } from "./run-workers.js";
import { RunRepository } from "./runs.js";
import { ScheduleRepository } from "./schedules.js";
import { UserRepository } from "./users.js";

export type { DatabaseProvider, DbClient } from "./db-client.js";

export interface Repositories {
  runs: RunRepository;
  runWorkers: RunWorkerRepository;
  seconds: RunSecondRepository;
  aggregates: RunAggregateRepository;
  files: RunFileRepository;
  users: UserRepository;
  tokens: ApiTokenRepository;
  audit: AuditRepository;
  schedules: ScheduleRepository;
}

/** The repositories over a client; `decorate` wraps each (e.g. to retry while SQLite is busy). */
export function createRepositories(
  client: DbClient,
  provider: DatabaseProvider,
  decorate: <T extends object>(repository: T) => T = (repository) => repository,
): Repositories {
  return {
    runs: decorate(new RunRepository(client)),
    runWorkers: decorate(new RunWorkerRepository(client)),
    seconds: decorate(new RunSecondRepository(client, provider)),
    aggregates: decorate(new RunAggregateRepository(client)),
    files: decorate(new RunFileRepository(client)),
    users: decorate(new UserRepository(client)),
    tokens: decorate(new ApiTokenRepository(client)),
    audit: decorate(new AuditRepository(client)),
    schedules: decorate(new ScheduleRepository(client)),
  };
}
