import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isolatedSetup, spawnCli } from "./processes.js";

/** A directory to write scenarios in, and `volley` run there against its own database and queue. */
export interface CliSandbox {
  dir: string;
  writeScenario(name: string, content: unknown, yaml?: boolean): string;
  volley(args: string[]): Promise<{ code: number | string; output: string }>;
}

export function cliSandbox(prefix: string): CliSandbox {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    writeScenario(name, content, yaml = false) {
      const file = join(dir, name);
      writeFileSync(file, yaml ? String(content) : JSON.stringify(content));
      return file;
    },
    async volley(args) {
      const setup = isolatedSetup();
      const cli = spawnCli(
        args,
        { DATABASE_URL: setup.databaseUrl, VOLLEY_QUEUE_PREFIX: setup.queuePrefix },
        dir,
      );
      const code = await cli.exited;
      return { code, output: cli.output.join("") };
    },
  };
}
