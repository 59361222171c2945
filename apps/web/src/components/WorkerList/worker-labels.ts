import type { WorkerInfo } from "@volley/protocol";

/** "pool=eu" for each label of a worker. */
export function labelText(labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([key, value]) => `${key}=${value}`);
}

/** Every label the workers carry, once each, sorted: what the Workers page filters by and the New run form offers. */
export function workerLabelOptions(workers: WorkerInfo[]): string[] {
  return [...new Set(workers.flatMap((w) => labelText(w.labels ?? {})))].sort();
}
