export { type OidcOptions, parseRoleMap } from "./access/oidc-config.js";
export { buildApp } from "./app.js";
export { type RunningMaster, startMaster } from "./master.js";
export { isLoopback, type MasterOptions, resolveMasterOptions } from "./options.js";
export type { RouteAccess, RouteEntry } from "./plugins/route-access.js";
export { redisAnswers } from "./redis-probe.js";
export type { WorkerCommand } from "./workers/local-workers.js";
