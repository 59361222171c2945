import { type DemoRequest, type DemoResponse, fields, readBody, sendJson, sendText } from "./http-kit.js";

/** Instances the registry keeps at most. */
const MAX_INSTANCES = 100_000;

interface Instance {
  serviceName: string;
  ip: string;
  port: number;
  clusterName: string;
}

/**
 * A service registry shaped like Nacos's instance API (`/nacos/v1/ns/instance`): register
 * (POST, form), list (GET .../list), deregister (DELETE with the query), in memory.
 */
export class Registry {
  private readonly instances = new Map<string, Instance>();

  async route(req: DemoRequest, res: DemoResponse, url: URL): Promise<boolean> {
    const method = req.method ?? "GET";
    if (url.pathname === "/nacos/v1/ns/instance/list" && method === "GET") {
      const service = url.searchParams.get("serviceName") ?? "";
      const clusters = (url.searchParams.get("clusters") ?? "").split(",").filter(Boolean);
      const hosts = [...this.instances.values()]
        .filter(
          (i) => i.serviceName === service && (clusters.length === 0 || clusters.includes(i.clusterName)),
        )
        .slice(0, 1000);
      sendJson(req, res, 200, { name: service, clusters: clusters.join(","), hosts });
      return true;
    }
    if (url.pathname !== "/nacos/v1/ns/instance") return false;
    const given =
      method === "POST" ? fields(req, await readBody(req)) : Object.fromEntries(url.searchParams.entries());
    const key = `${given.serviceName}|${given.ip}|${given.port}`;
    if (!given.serviceName || !given.ip || !given.port) {
      sendText(res, 400, "caused: serviceName, ip and port are required");
    } else if (method === "POST") {
      this.instances.set(key, {
        serviceName: String(given.serviceName),
        ip: String(given.ip),
        port: Number(given.port),
        clusterName: String(given.clusterName ?? "DEFAULT"),
      });
      if (this.instances.size > MAX_INSTANCES)
        this.instances.delete(this.instances.keys().next().value as string);
      sendText(res, 200, "ok");
    } else if (method === "DELETE") {
      this.instances.delete(key);
      sendText(res, 200, "ok");
    } else {
      sendText(res, 405, `${method} is not allowed here`);
    }
    return true;
  }
}
