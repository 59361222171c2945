import { parentPort, workerData } from "node:worker_threads";
import { checkScripts } from "./check-program.js";

/** Runs one check off the caller's event loop: the compiler holds a thread for a second or two. */
const { scripts, files } = workerData as { scripts: string[]; files: Record<string, string> };
try {
  parentPort?.postMessage({ problems: checkScripts(scripts, files) });
} catch (error) {
  parentPort?.postMessage({ error: (error as Error).message });
}
