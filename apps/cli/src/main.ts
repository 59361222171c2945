import { MasterConfigError } from "@volley/master";
import { WorkerConfigError } from "@volley/worker";
import { EXIT, UsageError } from "./cli-error.js";
import { MASTER_HELP, masterCommand } from "./commands/master.js";
import { RUN_HELP, runCommand } from "./commands/run.js";
import { START_HELP, startCommand } from "./commands/start.js";
import { WORKER_HELP, workerCommand } from "./commands/worker.js";

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; help: string }> = {
  master: { run: masterCommand, help: MASTER_HELP },
  worker: { run: workerCommand, help: WORKER_HELP },
  run: { run: runCommand, help: RUN_HELP },
  start: { run: startCommand, help: START_HELP },
};

export const HELP = `Usage: volley <command> [options]

Commands:
  master   start the master (API, dashboard, stats pipeline)
  worker   join a master as a worker node
  run      run a scenario headless and print the summary
  start    master + one local worker + Redis if needed (the quick start)

Run "volley <command> --help" for the options of each.`;

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(HELP);
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`volley: unknown command "${name}"\n\n${HELP}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    // Bad input or an environment the command cannot work in: the message says what to do.
    if (
      error instanceof UsageError ||
      error instanceof MasterConfigError ||
      error instanceof WorkerConfigError
    ) {
      console.error(`volley ${name}: ${error.message}`);
      return EXIT.usage;
    }
    console.error(`volley ${name}: ${(error as Error).stack ?? error}`);
    return EXIT.usage;
  }
}
