/** Bad input on the command line or in a file: printed without a stack, exit code 2. */
export class UsageError extends Error {}

export const EXIT = { ok: 0, thresholdsFailed: 1, usage: 2, interrupted: 130 } as const;
