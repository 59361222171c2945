import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Services } from "../services.js";

declare module "fastify" {
  interface FastifyInstance {
    services: Services;
  }
}

/** Makes the master's services available to every route as `app.services`. */
export const servicesPlugin = fp(
  async (app: FastifyInstance, services: Services) => {
    app.decorate("services", services);
  },
  { name: "volley-services" },
);
