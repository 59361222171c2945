export { databaseMessage, isBusy, isUnavailable } from "./db-errors.js";
export { applyMigrations, loadMigrations, type Migration, type MigrationConnection } from "./migrate.js";
export {
  type Database,
  type DatabaseProvider,
  type OpenDatabaseOptions,
  openDatabase,
  providerOf,
  redact,
} from "./open-database.js";
export type { ApiTokenRow, NewApiToken } from "./repositories/api-tokens.js";
export type { AuditFilter, AuditRow, NewAuditEntry } from "./repositories/audit.js";
export type { Repositories } from "./repositories/index.js";
export type { RunAggregateRow } from "./repositories/run-aggregates.js";
export {
  type PackedRunFile,
  type RunFileContent,
  type RunFileInfo,
  type RunFileKind,
  RunFileRepository,
} from "./repositories/run-files.js";
export type { NewRunSecond, RunSecondRow } from "./repositories/run-seconds.js";
export type { NewRunWorker, RunWorkerRow, RunWorkerUpdate } from "./repositories/run-workers.js";
export type { NewRun, RunListFilter, RunRow, RunUpdate } from "./repositories/runs.js";
export { RunNotOwnedError } from "./repositories/runs.js";
export type { NewSchedule, ScheduleRow, ScheduleUpdate } from "./repositories/schedules.js";
export type { NewUser, UserRow } from "./repositories/users.js";
