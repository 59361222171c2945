// Module k6: check, group, sleep, fail.
import { vuOrNull } from "./vu.js";

/** k6's check: each condition (a function of `value`, or a value) counted under its name. */
export function check(
  value: unknown,
  conditions: Record<string, unknown>,
  _tags?: Record<string, string>,
): boolean {
  // In setup() there is no VU: the conditions are evaluated, not counted.
  const running = vuOrNull();
  let all = true;
  for (const [name, condition] of Object.entries(conditions)) {
    const passed = Boolean(typeof condition === "function" ? condition(value) : condition);
    running?.check(name, passed);
    all &&= passed;
  }
  return all;
}

export async function group<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
  const running = vuOrNull();
  return running ? running.group(name, fn) : fn();
}

export function sleep(seconds: number): Promise<void> {
  const running = vuOrNull();
  return running ? running.sleep(seconds * 1000) : new Promise((done) => setTimeout(done, seconds * 1000));
}

export function fail(message?: string): never {
  throw new Error(message ?? "fail() called");
}
