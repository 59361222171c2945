import { EXIT, UsageError } from "./cli-error.js";

type Command = (argv: string[]) => Promise<number>;

// Each command loads the master or worker only when it runs: `volley --help` stays instant.
const COMMANDS: Record<string, () => Promise<Command>> = {
  master: async () => (await import("./commands/master.js")).masterCommand,
  worker: async () => (await import("./commands/worker.js")).workerCommand,
  aggregator: async () => (await import("./commands/aggregator.js")).aggregatorCommand,
  run: async () => (await import("./commands/run.js")).runCommand,
  start: async () => (await import("./commands/start.js")).startCommand,
  demo: async () => (await import("./commands/demo.js")).demoCommand,
  import: async () => (await import("./commands/import.js")).importCommand,
  convert: async () => (await import("./commands/convert.js")).convertCommand,
  user: async () => (await import("./commands/user.js")).userCommand,
};

export const HELP = `Usage: volley <command> [options]

Commands:
  master      start the master (API, dashboard, stats pipeline)
  worker      join a master as a worker node
  aggregator  merge many workers' stats for the master (hundreds of workers and up)
  run         run a scenario headless and print the summary
  start       master + one local worker + Redis if needed + the demo shop (the quick start)
  demo        a demo shop to test against (HTTP, h2c, WebSocket, SSE, gRPC)
  import      a scenario from a HAR recording, an OpenAPI description, a Postman
              collection or a curl command
  convert     a k6 script as a Volley scenario and script
  user        add a user to a master (volley user add NAME --role R)

Run "volley <command> --help" for the options of each.

  --log-format json|human  logs as JSON lines, or short lines for a person
                           (default: human on a terminal, JSON otherwise)`;

/** Runs the CLI; returns the exit code. */
export async function main(input: string[]): Promise<number> {
  let argv = input;
  // Every command's components read it (VOLLEY_LOG_FORMAT): one flag for all of them.
  const at = argv.findIndex((arg) => arg === "--log-format" || arg.startsWith("--log-format="));
  if (at >= 0) {
    const value = argv[at].includes("=") ? argv[at].slice("--log-format=".length) : argv[at + 1];
    // Loaded only when asked: `volley --help` stays instant.
    const { LOG_FORMATS } = await import("@volley/protocol");
    if (!(LOG_FORMATS as readonly string[]).includes(value ?? "")) {
      console.error(
        `volley: --log-format: expected json or human, got ${value === undefined ? "nothing" : `"${value}"`}`,
      );
      return EXIT.usage;
    }
    process.env.VOLLEY_LOG_FORMAT = value;
    argv = argv.filter((_, i) => i !== at && (argv[at].includes("=") || i !== at + 1));
  }
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
