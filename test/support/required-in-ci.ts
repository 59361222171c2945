/**
 * Whether a suite that needs something of the machine (a Docker daemon, network namespaces) must
 * be skipped here. Outside CI it is skipped, saying why; under CI (`CI=true`, as `.ci/run` sets)
 * a missing prerequisite is a failure: CI installs and starts what these suites need, so a skip
 * there would hide a suite that never ran.
 */
export function skippedHere(suite: string, unavailable: string | null): boolean {
  if (unavailable === null) return false;
  if (process.env.CI === "true") {
    throw new Error(`${suite} must run in CI, but ${unavailable}`);
  }
  console.warn(`${suite} skipped: ${unavailable}`);
  return true;
}
