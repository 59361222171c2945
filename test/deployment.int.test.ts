import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { CLI, ROOT } from "./support/processes.js";

// The files themselves: structure, ports, commands, flags and variables that must agree with the
// code, and the Kubernetes manifests against the Kubernetes OpenAPI schemas (no cluster here).
// compose-stack.int.test.ts runs the image and the Compose stack for real.
const docker = (file: string) => readFileSync(join(ROOT, "docker", file), "utf8");
type ComposeService = {
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  container_name?: string;
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
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
    expect(file).toMatch(/^ARG BASE_IMAGE=node:20[^\n]*$/m);
    expect(file).toMatch(/^FROM \$\{BASE_IMAGE\} AS build$/m);
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
  const compose = parse(docker("compose.yaml")) as { services: Record<string, ComposeService> };
  const { redis, postgres, master, worker, aggregator } = compose.services;
  const code = variablesTheCodeReads();

  it("has Redis that keeps and never evicts batches, PostgreSQL, a master and scalable workers", () => {
    expect(redis.command).toEqual(
      expect.arrayContaining(["--appendonly", "yes", "--maxmemory-policy", "noeviction"]),
    );
    expect(postgres.healthcheck?.test.join(" ")).toContain("pg_isready");
    expect(master.command?.slice(0, 1)).toEqual(["master"]);
    expect(master.ports).toEqual([`\${VOLLEY_PORT:-8089}:8089`]);
    expect(master.healthcheck?.test.join(" ")).toContain("/api/health");
    expect(master.depends_on).toMatchObject({
      redis: { condition: "service_healthy" },
      postgres: { condition: "service_healthy" },
    });
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    expect(worker.depends_on).toMatchObject({ master: { condition: "service_healthy" } });
    // Aggregators only when asked for, on the master's Redis, scalable (one shared partition).
    expect(aggregator.profiles).toEqual(["aggregators"]);
    expect(aggregator.command?.slice(0, 1)).toEqual(["aggregator"]);
    expect(aggregator.environment?.REDIS_URL).toBe(master.environment?.REDIS_URL);
    expect(aggregator.container_name).toBeUndefined();
  });

  it("points the workers at the master's service name and port, with the token", () => {
    const masterUrl = worker.command?.[worker.command.indexOf("--master") + 1];
    expect(masterUrl).toBe(`http://master:${master.command?.[master.command.indexOf("--port") + 1]}`);
    expect(master.environment?.DATABASE_URL).toMatch(
      /^postgresql:\/\/volley:\$\{POSTGRES_PASSWORD\}@postgres:5432\/volley$/,
    );
    expect(master.environment?.REDIS_URL).toBe("redis://redis:6379");
    expect(worker.environment?.VOLLEY_TOKEN).toBe(`\${VOLLEY_TOKEN}`);
    expect(worker.environment?.VOLLEY_LABELS).toBe(`\${VOLLEY_WORKER_LABELS:-}`);
  });

  it("uses only variables the code reads, and .env.example names every one it needs", () => {
    for (const name of ["master", "worker", "aggregator"]) {
      for (const variable of Object.keys(compose.services[name].environment ?? {}))
        expect(code, variable).toContain(variable);
    }
    const example = docker(".env.example");
    // Variables without a default (`${NAME}`, `${NAME:?...}`) must be set; `${NAME:-x}` need not.
    for (const m of docker("compose.yaml").matchAll(/\$\{([A-Z_]+)(?=\}|:\?)/g))
      expect(example, m[1]).toMatch(new RegExp(`^${m[1]}=`, "m"));
  });

  it("uses only flags the commands accept", () => {
    for (const [name, service] of [
      ["master", master],
      ["worker", worker],
      ["aggregator", aggregator],
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

  it("has aggregators on one shared partition, reading the Secret", () => {
    const aggregators = find("Deployment", "volley-aggregator");
    const container = aggregators.spec.template.spec.containers[0];
    expect(container.args).toEqual(["aggregator", "--partition", "volley"]);
    expect(container.envFrom).toEqual([{ secretRef: { name: "volley" } }]);
    expect(aggregators.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

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
    // Their labels, as VOLLEY_LABELS (a variable the worker reads).
    expect(workerContainer.env).toContainEqual({ name: "VOLLEY_LABELS", value: "pool=k8s" });
    expect(variablesTheCodeReads()).toContain("VOLLEY_LABELS");
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

  it("validate against the Kubernetes OpenAPI schemas (kubernetes-models), and a wrong type fails", () => {
    const models: Record<string, new (data: object) => { validate(): void }> = {
      "apps/v1/Deployment": Deployment,
      "v1/Service": Service,
      "v1/Secret": Secret,
    };
    for (const doc of docs) {
      const Model = models[`${doc.apiVersion}/${doc.kind}`];
      expect(Model, `${doc.apiVersion} ${doc.kind}`).toBeDefined();
      expect(() => new Model(doc).validate(), `${doc.kind} ${doc.metadata.name}`).not.toThrow();
    }
    const broken = structuredClone(find("Deployment", "volley-master"));
    broken.spec.template.spec.containers[0].ports[0].containerPort = "8089";
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort must be integer/);
  });

  it("stay in step with compose.yaml: commands, port, probe, variables, stop grace", () => {
    const compose = parse(docker("compose.yaml")) as { services: Record<string, ComposeService> };
    const secret = find("Secret", "volley");
    const seconds = (grace?: string) => Number(grace?.replace(/s$/, ""));
    for (const role of ["master", "worker", "aggregator"] as const) {
      const service = compose.services[role];
      const pod = find("Deployment", `volley-${role}`).spec.template.spec;
      const args: string[] = pod.containers[0].args;
      const command = service.command ?? [];
      expect(args[0]).toBe(command[0]);
      if (role !== "worker") expect(args).toEqual(command);
      else {
        // Each names the master by its own service name, on the same port.
        const url = (list: string[]) => new URL(list[list.indexOf("--master") + 1]);
        expect(url(args).port).toBe(url(command).port);
        // One engine thread per CPU the pod may use.
        expect(args[args.indexOf("--threads") + 1]).toBe(pod.containers[0].resources.limits.cpu);
      }
      expect(pod.terminationGracePeriodSeconds, role).toBe(seconds(service.stop_grace_period));
      // Each variable compose sets comes from the Secret, or from the pod's own env (labels).
      const podEnv = (pod.containers[0].env ?? []).map((e: { name: string }) => e.name);
      for (const variable of Object.keys(service.environment ?? {}))
        expect([...Object.keys(secret.stringData), ...podEnv], variable).toContain(variable);
    }
    const master = find("Deployment", "volley-master").spec.template.spec.containers[0];
    expect(compose.services.master.ports?.[0]).toMatch(new RegExp(`:${master.ports[0].containerPort}$`));
    expect(compose.services.master.healthcheck?.test.join(" ")).toContain(master.readinessProbe.httpGet.path);
  });
});
