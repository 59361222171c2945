import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { CLI, ROOT } from "./support/processes.js";

// There is no Docker engine on this machine: the image, Compose file and manifests are checked
// for what can go wrong without one — structure, ports, commands, flags and variables that must
// agree with the code.
const docker = (file: string) => readFileSync(join(ROOT, "docker", file), "utf8");
type Service = {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  container_name?: string;
  depends_on?: Record<string, { condition: string }>;
};

/** Environment variables Volley's own code reads. */
function variablesTheCodeReads(): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (["node_modules", "dist", "generated"].includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name) && !entry.name.endsWith(".test.ts")) {
        for (const m of readFileSync(path, "utf8").matchAll(/\benv\.([A-Z_]+)/g)) found.add(m[1]);
      }
    }
  };
  for (const dir of ["apps/master/src", "apps/worker/src", "apps/cli/src", "packages/db/src"])
    walk(join(ROOT, dir));
  return found;
}

const help = (command: string) =>
  execFileSync(process.execPath, [CLI, command, "--help"], { encoding: "utf8" });

describe("docker/Dockerfile", () => {
  const file = docker("Dockerfile");
  it("runs the built volley command as a non-root user, master by default on the default port", () => {
    expect(file).toMatch(/^FROM node:20[^\n]* AS build/m);
    expect(file).toContain("pnpm install --frozen-lockfile");
    expect(file).toContain("pnpm build");
    expect(file).toContain("--prod");
    expect(file).toMatch(/^USER node$/m);
    expect(file).toContain('ENTRYPOINT ["node", "apps/cli/dist/bin.js"]');
    expect(file).toContain('CMD ["master", "--host", "0.0.0.0", "--port", "8089"]');
    expect(file).toContain("EXPOSE 8089");
    expect(file).toContain("/api/health");
    expect(readFileSync(join(ROOT, "apps/master/src/options.ts"), "utf8")).toContain(
      "port: options.port ?? 8089",
    );
  });
});

describe("docker/compose.yaml", () => {
  const compose = parse(docker("compose.yaml")) as { services: Record<string, Service> };
  const { redis, postgres, master, worker } = compose.services;
  const code = variablesTheCodeReads();

  it("has Redis that keeps and never evicts batches, PostgreSQL, a master and scalable workers", () => {
    expect(redis.command).toEqual(
      expect.arrayContaining(["--appendonly", "yes", "--maxmemory-policy", "noeviction"]),
    );
    expect(postgres.healthcheck?.test.join(" ")).toContain("pg_isready");
    expect(master.command?.slice(0, 1)).toEqual(["master"]);
    expect(master.ports).toEqual(["8089:8089"]);
    expect(master.healthcheck?.test.join(" ")).toContain("/api/health");
    expect(master.depends_on).toMatchObject({
      redis: { condition: "service_healthy" },
      postgres: { condition: "service_healthy" },
    });
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    expect(worker.depends_on).toMatchObject({ master: { condition: "service_healthy" } });
  });

  it("points the workers at the master's service name and port, with the token", () => {
    const masterUrl = worker.command?.[worker.command.indexOf("--master") + 1];
    expect(masterUrl).toBe(`http://master:${master.command?.[master.command.indexOf("--port") + 1]}`);
    expect(master.environment?.DATABASE_URL).toMatch(
      /^postgresql:\/\/volley:\$\{POSTGRES_PASSWORD\}@postgres:5432\/volley$/,
    );
    expect(master.environment?.REDIS_URL).toBe("redis://redis:6379");
    expect(worker.environment?.VOLLEY_TOKEN).toBe(`\${VOLLEY_TOKEN}`);
  });

  it("uses only variables the code reads, and .env.example names every one it needs", () => {
    for (const name of ["master", "worker"]) {
      for (const variable of Object.keys(compose.services[name].environment ?? {}))
        expect(code, variable).toContain(variable);
    }
    const example = docker(".env.example");
    for (const m of docker("compose.yaml").matchAll(/\$\{([A-Z_]+)/g))
      expect(example, m[1]).toMatch(new RegExp(`^${m[1]}=`, "m"));
  });

  it("uses only flags the commands accept", () => {
    for (const [name, service] of [
      ["master", master],
      ["worker", worker],
    ] as const) {
      const text = help(name);
      for (const flag of service.command?.filter((a) => a.startsWith("--")) ?? [])
        expect(text, flag).toContain(flag);
    }
  });
});

describe("docker/k8s", () => {
  const docs = readdirSync(join(ROOT, "docker/k8s"))
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => parseAllDocuments(docker(`k8s/${f}`)).map((d) => d.toJS()));
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

  it("has the master (one replica) behind a Service, workers, and the Secret they read", () => {
    const master = find("Deployment", "volley-master");
    const service = find("Service", "volley-master");
    const workers = find("Deployment", "volley-worker");
    const secret = find("Secret", "volley");
    expect(master.spec.replicas).toBe(1);
    const container = master.spec.template.spec.containers[0];
    expect(container.args.slice(0, 1)).toEqual(["master"]);
    expect(container.ports[0]).toEqual({ name: "http", containerPort: 8089 });
    expect(container.readinessProbe.httpGet.path).toBe("/api/health");
    expect(service.spec.ports[0]).toMatchObject({ port: 8089, targetPort: "http" });
    expect(service.spec.selector).toEqual(master.spec.selector.matchLabels);
    const workerContainer = workers.spec.template.spec.containers[0];
    expect(workerContainer.args).toEqual(
      expect.arrayContaining(["worker", "--master", "http://volley-master:8089"]),
    );
    for (const deployment of [master, workers]) {
      expect(deployment.spec.template.spec.containers[0].envFrom).toEqual([
        { secretRef: { name: "volley" } },
      ]);
      expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    }
    const code = variablesTheCodeReads();
    for (const key of Object.keys(secret.stringData)) expect(code, key).toContain(key);
    expect(Object.keys(secret.stringData).sort()).toEqual(["DATABASE_URL", "REDIS_URL", "VOLLEY_TOKEN"]);
  });

  it("uses only flags the commands accept", () => {
    for (const deployment of docs.filter((d) => d.kind === "Deployment")) {
      const args: string[] = deployment.spec.template.spec.containers[0].args;
      const text = help(args[0]);
      for (const flag of args.filter((a) => a.startsWith("--"))) expect(text, flag).toContain(flag);
    }
  });
});
