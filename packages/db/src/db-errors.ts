/** What the database said, as far as Prisma and its driver adapters pass it on. */
interface DriverCause {
  originalCode?: string;
  originalMessage?: string;
  kind?: string;
}

// Prisma wraps some driver errors (`meta.driverAdapterError`) and passes others as they are.
function causeOf(error: unknown): DriverCause | undefined {
  const e = error as {
    name?: string;
    cause?: DriverCause;
    meta?: { driverAdapterError?: { cause?: DriverCause } };
  };
  return e?.meta?.driverAdapterError?.cause ?? (e?.name === "DriverAdapterError" ? e.cause : undefined);
}

/** SQLite's "database is locked": retried asynchronously (see busy-retry.ts). */
export function isBusy(error: unknown): boolean {
  const code = causeOf(error)?.originalCode ?? (error as { code?: string })?.code ?? "";
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED");
}

// Prisma: cannot reach, timed out, connection closed, pool timeout. PostgreSQL: read-only
// transaction, admin shutdown, cannot connect now. SQLite: read-only file, locked.
const UNAVAILABLE_PRISMA = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const UNAVAILABLE_DRIVER =
  /^(25006|57P0[1-3]|08\w{3}|SQLITE_READONLY|SQLITE_BUSY|SQLITE_LOCKED|SQLITE_CANTOPEN)/;

/** The database is away, locked or refuses writes: the request may succeed later (503, not 500). */
export function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? "";
  return UNAVAILABLE_PRISMA.has(code) || UNAVAILABLE_DRIVER.test(causeOf(error)?.originalCode ?? "");
}

/** The database's own words for a failure, on one line (Prisma wraps them in lines of context). */
export function databaseMessage(error: unknown): string {
  const cause = causeOf(error);
  if (cause?.originalMessage) {
    return `${cause.originalMessage}${cause.originalCode ? ` (${cause.originalCode})` : ""}`;
  }
  const lines = ((error as Error)?.message ?? String(error)).split("\n").filter((line) => line.trim());
  return lines[lines.length - 1]?.trim() ?? "unknown error";
}
