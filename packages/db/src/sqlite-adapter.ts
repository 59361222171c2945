import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

type SqlDriverAdapter = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;
type Transaction = Awaited<ReturnType<SqlDriverAdapter["startTransaction"]>>;

/**
 * Prisma's better-sqlite3 adapter, with transactions that always give their lock back. The
 * adapter holds one mutex per open transaction and releases it only in commit() and rollback(),
 * which Prisma calls after a `COMMIT`/`ROLLBACK` statement succeeds. On a full disk SQLite fails
 * the `COMMIT` (SQLITE_FULL), or has already rolled back so `ROLLBACK` fails: the mutex was never
 * released and every later transaction (each checkpoint) waited forever. Here a failed end
 * statement rolls back what is left and releases the lock, once.
 */
export function sqliteAdapter(url: string): PrismaBetterSQLite3 {
  const factory = new PrismaBetterSQLite3({ url, timeout: 0 });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => releasing(await start(isolationLevel));
    return adapter;
  };
  return factory;
}

function releasing(transaction: Transaction): Transaction {
  let released = false;
  const commit = transaction.commit.bind(transaction);
  const rollback = transaction.rollback.bind(transaction);
  const release = (end: () => Promise<void>) => async () => {
    if (released) return;
    released = true;
    await end();
  };
  transaction.commit = release(commit);
  transaction.rollback = release(rollback);
  const executeRaw = transaction.executeRaw.bind(transaction);
  transaction.executeRaw = async (query) => {
    const statement = query.sql.trim().toUpperCase();
    if (statement !== "COMMIT" && statement !== "ROLLBACK") return executeRaw(query);
    try {
      return await executeRaw(query);
    } catch (error) {
      // Whatever is still open is undone (SQLite may have rolled back already), then unlocked.
      if (statement === "COMMIT") await executeRaw({ ...query, sql: "ROLLBACK" }).catch(() => 0);
      await transaction.rollback();
      if (statement === "ROLLBACK") return 0; // nothing was open: rolled back already
      throw error;
    }
  };
  return transaction;
}
