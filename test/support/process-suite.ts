import { afterAll, afterEach, beforeAll } from "vitest";
import { killAll } from "./processes.js";
import { startTargetServer, type TargetServer } from "./target-server.js";

/**
 * The frame of a suite of real processes: one counting target for the file, and after each test
 * every process the test started is killed and the target's counts reset. Read `suite.target`
 * inside tests (it exists once the file's beforeAll ran).
 */
export function processSuite(): { readonly target: TargetServer } {
  let target: TargetServer | undefined;
  beforeAll(async () => {
    target = await startTargetServer();
  });
  afterEach(async () => {
    await killAll();
    target?.reset();
  });
  afterAll(async () => {
    await killAll();
    await target?.close();
  });
  return {
    get target(): TargetServer {
      if (!target) throw new Error("the suite's target starts in beforeAll");
      return target;
    },
  };
}
