import { databaseMessage, isUnavailable } from "@volley/db";
import { ValidationError, VolleyError } from "@volley/protocol";
import type { FastifyError, FastifyInstance } from "fastify";
import fp from "fastify-plugin";

/**
 * The one place errors become HTTP answers: `{ error, code, details? }` with the status the
 * error code declares. Unknown errors are logged and answered 500 without internals.
 */
export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError | VolleyError, request, reply) => {
      if (error instanceof ValidationError) {
        return reply.code(400).send({ error: error.message, code: error.code, details: error.issues });
      }
      if (error instanceof VolleyError) {
        return reply.code(error.status).send({ error: error.message, code: error.code });
      }
      const fastifyError = error as FastifyError;
      if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
        return reply.code(413).send({
          error: `request body is larger than ${request.routeOptions.bodyLimit ?? app.services.config.bodyLimit} bytes`,
          code: "VOL_ERR_PAYLOAD_TOO_LARGE",
        });
      }
      if (fastifyError.statusCode && fastifyError.statusCode < 500) {
        return reply.code(fastifyError.statusCode).send({
          error: fastifyError.message,
          code: fastifyError.statusCode === 404 ? "VOL_ERR_NOT_FOUND" : "VOL_ERR_VALIDATION",
          details: [{ path: "(body)", message: fastifyError.message }],
        });
      }
      if (isUnavailable(error)) {
        const reason = databaseMessage(error);
        request.log.warn({ err: reason }, "database unavailable");
        return reply
          .code(503)
          .send({ error: `the database is unavailable: ${reason}`, code: "VOL_ERR_UNAVAILABLE" });
      }
      request.log.error({ err: error }, "request failed");
      return reply
        .code(500)
        .send({ error: "internal error; see the master's log", code: "VOL_ERR_INTERNAL" });
    });
  },
  { name: "volley-error-handler", dependencies: ["volley-services"] },
);
