/**
 * Bad input on the command line or in a file is a `ConfigError` (from `@volley/protocol`, code
 * VOL_ERR_CONFIG): printed without a stack, exit code 2. `UsageError` is its name in the CLI.
 */
export { ConfigError as UsageError } from "@volley/protocol";

export const EXIT = { ok: 0, thresholdsFailed: 1, usage: 2, interrupted: 130 } as const;
