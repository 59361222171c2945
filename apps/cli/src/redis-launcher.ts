import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { redisAnswers } from "@volley/master";
import { DEFAULT_REDIS_URL } from "@volley/protocol";
import { UsageError } from "./cli-error.js";

export interface RedisHandle {
  url: string;
  /** True when this process started the server (and will stop it). */
  private: boolean;
  stop(): Promise<void>;
}

const HOW_TO_GET_REDIS =
  "No Redis answers. Install it (Debian/Ubuntu: `apt-get install redis-server`), or run one with Docker: " +
  "`docker run -d -p 6379:6379 redis:7 --maxmemory-policy noeviction`, or set REDIS_URL.";

export interface EnsureRedisOptions {
  /** A Redis the user named: it must answer. @defaultValue REDIS_URL */
  url?: string;
  /** Where a private server keeps its files (under `redis/`). */
  dataDir: string;
  /** The Redis tried when none is named. @defaultValue "redis://127.0.0.1:6379" */
  defaultUrl?: string;
}

/** The Redis to use: REDIS_URL or 127.0.0.1:6379 when it answers, else a private redis-server under dataDir. */
export async function ensureRedis(options: EnsureRedisOptions): Promise<RedisHandle> {
  const url = options.url || process.env.REDIS_URL || options.defaultUrl || DEFAULT_REDIS_URL;
  if (await redisAnswers(url)) return { url, private: false, stop: async () => {} };
  if (options.url || process.env.REDIS_URL) {
    // The user named this Redis: say that nothing answers there, and how to start one there.
    const installed = spawnSync("redis-server", ["--version"]).status === 0;
    const port = redisPort(url);
    throw new UsageError(
      installed
        ? `nothing answers at ${url} (REDIS_URL). Start Redis there (\`redis-server --port ${port}\`), or unset REDIS_URL to let Volley use 127.0.0.1:6379 or start a private one.`
        : `nothing answers at ${url} (REDIS_URL). ${HOW_TO_GET_REDIS}`,
    );
  }
  const dir = resolve(options.dataDir, "redis");
  // One private server per data folder: a second Volley process there (`volley run` beside the
  // dashboard) uses the first one's rather than start another on the same append-only files.
  const urlFile = join(dir, "redis.url");
  const running = readText(urlFile);
  if (running && (await redisAnswers(running))) return { url: running, private: false, stop: async () => {} };
  if (spawnSync("redis-server", ["--version"]).status !== 0) throw new UsageError(HOW_TO_GET_REDIS);
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--save",
      "",
      "--maxmemory-policy",
      "noeviction",
      "--daemonize",
      "no",
    ],
    { stdio: "ignore" },
  );
  const privateUrl = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await redisAnswers(privateUrl)) {
      writeFileSync(urlFile, privateUrl);
      return {
        url: privateUrl,
        private: true,
        stop: () =>
          new Promise<void>((done) => {
            if (readText(urlFile) === privateUrl) rmSync(urlFile, { force: true });
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new UsageError(`could not start a private redis-server under ${dir}. ${HOW_TO_GET_REDIS}`);
}

function redisPort(url: string): string {
  try {
    return new URL(url).port || "6379";
  } catch {
    return "6379";
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim() || null;
  } catch {
    return null;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
