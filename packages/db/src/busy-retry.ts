import { isBusy } from "./db-errors.js";

// SQLite is opened with a busy timeout of 0: a locked database answers SQLITE_BUSY at once
// instead of making better-sqlite3 sleep on the event loop (a 10 s busy timeout once froze the
// whole master, health included). The calls are retried here, asynchronously, with backoff.

/** Runs `work` again while the database is busy, for up to `budgetMs`; then throws the last error. */
export async function retryWhileBusy<T>(work: () => Promise<T>, budgetMs: number): Promise<T> {
  const deadline = Date.now() + budgetMs;
  let delay = 5;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isBusy(error) || Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
      delay = Math.min(delay * 2, 200);
    }
  }
}

/** The object with each of its methods retried while the database is busy. */
export function retryingWhileBusy<T extends object>(target: T, budgetMs: number): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => retryWhileBusy(() => value.apply(object, args), budgetMs);
    },
  });
}
