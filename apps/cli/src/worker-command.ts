import { fileURLToPath } from "node:url";
import type { WorkerCommand } from "@volley/master";

/** How a master started from this CLI starts local workers: this same program, `worker` subcommand. */
export function localWorkerCommand(): WorkerCommand {
  return { command: process.execPath, args: [fileURLToPath(new URL("./bin.js", import.meta.url)), "worker"] };
}
