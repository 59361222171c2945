// The VU an iteration runs on, found by every k6 call through AsyncLocalStorage, so helper
// functions need no `vu` parameter; k6's globals read from it.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Vu } from "@volley/script";

const current = new AsyncLocalStorage<Vu>();

/** Runs k6's default function (or an `exec` one) as a Volley iteration. */
export function k6Iteration(fn: (data: unknown) => unknown): (vu: Vu) => Promise<void> {
  return async (vu) => {
    await current.run(vu, async () => {
      await fn(vu.setupData);
    });
  };
}

export function vuOrNull(): Vu | undefined {
  return current.getStore();
}

export function vu(what: string): Vu {
  const running = current.getStore();
  if (running === undefined)
    throw new Error(`${what} runs inside an iteration only (not in setup or at the top level)`);
  return running;
}

/** `__VU` and `__ITER` as k6 gives them (0 outside an iteration). */
export function __VU(): number {
  return vuOrNull()?.number ?? 0;
}
export function __ITER(): number {
  return vuOrNull()?.iteration ?? 0;
}

/**
 * `__ENV`: the run's env values (the scenario's `env` lists the names the script reads): the
 * VU's, or in setup() and teardown() their process's, which holds those values and no others.
 */
export const __ENV: Record<string, string | undefined> = new Proxy(
  {},
  {
    get: (_target, name) => {
      if (typeof name !== "string") return undefined;
      const running = vuOrNull();
      return running ? running.env[name] : process.env[name];
    },
  },
);

/** `list.forEach(fn)` with an async `fn`, one after another as k6 ran it. */
export async function k6Each<T>(list: Iterable<T>, fn: (item: T, index: number) => unknown): Promise<void> {
  let index = 0;
  for (const item of list) await fn(item, index++);
}
