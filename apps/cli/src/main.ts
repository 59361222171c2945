import { EXIT, UsageError } from "./cli-error.js";

type Command = (argv: string[]) => Promise<number>;

// Each command loads the master or worker only when it runs: `volley --help` stays instant.
const COMMANDS: Record<string, () => Promise<Command>> = {
  master: async () => (await import("./commands/master.js")).masterCommand,
  worker: async () => (await import("./commands/worker.js")).workerCommand,
  aggregator: async () => (await import("./commands/aggregator.js")).aggregatorCommand,
  run: async () => (await import("./commands/run.js")).runCommand,
  start: async () => (await import("./commands/start.js")).startCommand,
};

export const HELP = `Usage: volley <command> [options]

Commands:
  master      start the master (API, dashboard, stats pipeline)
  worker      join a master as a worker node
  aggregator  merge many workers' stats for the master (hundreds of workers and up)
  run         run a scenario headless and print the summary
  start       master + one local worker + Redis if needed (the quick start)

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
    return await (await command())(rest);
  } catch (error) {
    // Bad input or an environment the command cannot work in (any component's ConfigError):
    // the message says what to do.
    if (error instanceof UsageError) {
      console.error(`volley ${name}: ${error.message}`);
      return EXIT.usage;
    }
    console.error(`volley ${name}: ${(error as Error).stack ?? error}`);
    return EXIT.usage;
  }
}
