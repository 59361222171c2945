import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./processes.js";

/**
 * The Docker daemon and Compose of this machine (DOCKER_HOST, as `.ci/run` starts it; see
 * docker/README.md): the images come from docker/local-image.sh, the stack from docker/compose.yaml
 * with docker/compose.local.yaml over it.
 */

/** Why containers cannot run here, or null when they can. */
export function dockerUnavailable(): string | null {
  for (const [command, args] of [
    ["docker", ["version", "--format", "{{.Server.Version}}"]],
    ["docker-compose", ["version", "--short"]],
  ] as const) {
    const probe = spawnSync(command, args, { encoding: "utf8", timeout: 10_000 });
    if (probe.error || probe.status !== 0) {
      const why = probe.error ? probe.error.message : probe.stderr.trim().split("\n")[0];
      return `\`${command} ${args[0]}\` failed (${why}); .ci/run starts a daemon (docker/README.md)`;
    }
  }
  const images = spawnSync("docker", ["image", "inspect", "volley-base:node20-trixie"], { timeout: 10_000 });
  if (images.status !== 0 && spawnSync("mmdebstrap", ["--version"]).status !== 0)
    return "no base image and no mmdebstrap to make one (apt-get install mmdebstrap)";
  return null;
}

export function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8", timeout: 120_000 }).trim();
}

/** The host's own address on a Docker network (a bridge): where its containers reach the host. */
export function networkGateway(network: string): string {
  return docker("network", "inspect", "-f", "{{range .IPAM.Config}}{{.Gateway}}{{end}}", network);
}

/** Builds volley:latest from this workspace's build, and the Redis and PostgreSQL images. */
export function buildLocalImages(): void {
  execFileSync(join(ROOT, "docker/local-image.sh"), ["--services"], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 900_000,
  });
}

export interface ContainerInfo {
  name: string;
  id: string;
  /** The container's address on the project's network. */
  address: string;
  running: boolean;
  health: string | null;
}

/** One Compose project of docker/compose.yaml + docker/compose.local.yaml. */
export class ComposeStack {
  constructor(
    readonly project: string,
    private readonly env: Record<string, string>,
  ) {}

  compose(...args: string[]): string {
    const files = ["compose.yaml", "compose.local.yaml"].flatMap((f) => ["-f", join(ROOT, "docker", f)]);
    return execFileSync("docker-compose", ["-p", this.project, ...files, ...args], {
      encoding: "utf8",
      env: { ...process.env, ...this.env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 300_000,
    });
  }

  /** The project's containers (running or not), `service` alone when given. */
  containers(service?: string): ContainerInfo[] {
    const filters = ["--filter", `label=com.docker.compose.project=${this.project}`];
    if (service) filters.push("--filter", `label=com.docker.compose.service=${service}`);
    const ids = docker("ps", "-aq", ...filters)
      .split("\n")
      .filter(Boolean);
    if (ids.length === 0) return [];
    type Inspected = {
      Name: string;
      Id: string;
      State: { Running: boolean; Health?: { Status: string } };
      NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
    };
    return (JSON.parse(docker("inspect", ...ids)) as Inspected[])
      .map((c) => ({
        name: c.Name.replace(/^\//, ""),
        id: c.Id,
        address: Object.values(c.NetworkSettings.Networks)[0]?.IPAddress ?? "",
        running: c.State.Running,
        health: c.State.Health?.Status ?? null,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The host's own address on the project's network: where containers reach a test target. */
  gateway(): string {
    return networkGateway(`${this.project}_default`);
  }

  /** Containers, volumes and the network of the project, all removed. */
  down(): void {
    // Every profile's containers too (the aggregators).
    this.compose("--profile", "aggregators", "down", "--volumes", "--timeout", "5");
  }
}
