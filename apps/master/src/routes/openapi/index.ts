import {
  listRunsQuerySchema,
  localWorkersBodySchema,
  scenarioSchema,
  VOLLEY_VERSION,
} from "@volley/protocol";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { VIEWER_ROUTE } from "../../plugins/route-access.js";
import { teamPaths } from "./team-paths.js";

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
const errorBody = {
  type: "object",
  properties: {
    error: { type: "string" },
    code: { type: "string" },
    details: {
      type: "array",
      items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } },
    },
  },
};
const answer = (description: string) => ({ description, content: { "application/json": {} } });
const failure = (description: string) => ({
  description,
  content: { "application/json": { schema: errorBody } },
});
const idParam = [{ name: "id", in: "path", required: true, schema: { type: "string" } }];

/** The API as OpenAPI 3.1, with request schemas taken from the same zod schemas the routes use. */
export function buildOpenApi(): Record<string, unknown> {
  const query = json(listRunsQuerySchema) as { properties: Record<string, unknown> };
  return {
    openapi: "3.1.0",
    info: { title: "Volley master API", version: VOLLEY_VERSION },
    components: { schemas: { Scenario: json(scenarioSchema), Error: errorBody } },
    paths: {
      "/api/health": {
        get: {
          summary: "Readiness: Redis and the database answer and the database takes writes",
          responses: {
            200: answer("all up"),
            503: answer("something is down or degraded (read-only database, failing checkpoints)"),
          },
        },
      },
      "/api/health/live": {
        get: { summary: "Liveness: the process answers", responses: { 200: answer("alive") } },
      },
      "/api/workers": { get: { summary: "Worker nodes", responses: { 200: answer("the workers") } } },
      "/api/workers/local": {
        post: {
          summary: "Start local worker processes",
          requestBody: { content: { "application/json": { schema: json(localWorkersBodySchema) } } },
          responses: { 202: answer("started"), 400: failure("bad body or over the limit") },
        },
      },
      "/api/workers/{id}": {
        delete: {
          summary: "Retire a worker",
          parameters: idParam,
          responses: {
            204: { description: "retired" },
            404: failure("no such worker"),
            409: failure("the worker is in a run"),
          },
        },
      },
      "/api/runs": {
        post: {
          summary: "Start a run",
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["scenario"],
                  properties: { scenario: { $ref: "#/components/schemas/Scenario" } },
                },
              },
            },
          },
          responses: {
            201: answer("{ id, status }"),
            400: failure("bad scenario"),
            409: failure("a run is active or no worker is ready"),
          },
        },
        get: {
          summary: "Run history, newest first",
          parameters: Object.entries(query.properties).map(([name, schema]) => ({
            name,
            in: "query",
            schema,
          })),
          responses: { 200: answer("{ runs, nextCursor }") },
        },
      },
      "/api/runs/{id}": {
        get: {
          summary: "One run with its summary",
          parameters: idParam,
          responses: { 200: answer("the run"), 404: failure("no such run") },
        },
      },
      "/api/runs/{id}/timeseries": {
        get: {
          summary: "Per-second points, overall, per request and per scenario; ?scenario= gives one scenario",
          parameters: [
            ...idParam,
            { name: "scenario", in: "query", required: false, schema: { type: "string" } },
          ],
          responses: {
            200: answer("{ overall, requests, scenarios }"),
            400: failure("no such scenario in the run"),
            404: failure("no such run"),
          },
        },
      },
      "/api/runs/{id}/load": {
        patch: {
          summary: "Change the running run's VUs or arrival rate",
          parameters: idParam,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    vus: { type: "integer", minimum: 0 },
                    rate: { type: "number", minimum: 0 },
                    scenario: { type: "string" },
                  },
                  additionalProperties: false,
                },
              },
            },
          },
          responses: {
            200: answer("{ id, loadChanges }"),
            400: failure("the executor has no such knob, too many VUs, unknown scenario"),
            404: failure("no such run"),
            409: failure("not running"),
          },
        },
      },
      "/api/runs/{id}/rebalance": {
        post: {
          summary: "Give ready workers outside the running run a share of it (load and unused unique rows)",
          parameters: idParam,
          responses: {
            200: answer("{ id, loadChanges }"),
            400: failure("per-vu-iterations or shared-iterations"),
            404: failure("no such run"),
            409: failure("not running, no worker outside the run, or another rebalance under way"),
          },
        },
      },
      "/api/runs/{id}/stop": {
        post: {
          summary: "Graceful stop",
          parameters: idParam,
          responses: { 202: answer("stopping"), 404: failure("no such run"), 409: failure("not active") },
        },
      },
      "/api/runs/{id}/report.{format}": {
        get: {
          summary: "Downloadable report (json, csv, html)",
          parameters: [
            ...idParam,
            { name: "format", in: "path", required: true, schema: { enum: ["json", "csv", "html"] } },
          ],
          responses: { 200: { description: "the report" }, 404: failure("no such run or format") },
        },
      },
      "/api/compare": {
        get: {
          summary: "Two runs side by side",
          parameters: ["a", "b"].map((name) => ({
            name,
            in: "query",
            required: true,
            schema: { type: "string" },
          })),
          responses: {
            200: answer("{ a, b, total, requests, scenarios?, groups?, shift }"),
            404: failure("no such run"),
          },
        },
      },
      "/api/trends": {
        get: {
          summary: "The last finished runs of a scenario name, oldest first",
          parameters: [
            { name: "name", in: "query", required: true, schema: { type: "string" } },
            {
              name: "limit",
              in: "query",
              required: false,
              schema: { type: "integer", minimum: 1, maximum: 100 },
            },
          ],
          responses: {
            200: answer("[{ id, startedAt, rps, errorRate, p50, p95, p99, verdict }]"),
            400: failure("bad query"),
          },
        },
      },
      "/api/runs/{id}/summary": {
        get: {
          summary: "The exact summary of seconds [from, to) since the start",
          parameters: [
            ...idParam,
            ...["from", "to"].map((name) => ({
              name,
              in: "query",
              required: true,
              schema: { type: "integer", minimum: 0 },
            })),
          ],
          responses: {
            200: answer("the summary of the window"),
            400: failure("bad window"),
            404: failure("no such run"),
          },
        },
      },
      "/api/runs/{id}/baseline": {
        get: {
          summary:
            "The finished run this one is judged against: the newest other of its name, or the pinned one",
          parameters: [
            ...idParam,
            {
              name: "which",
              in: "query",
              schema: { type: "string", enum: ["last", "pinned"], default: "last" },
            },
          ],
          responses: { 200: answer("{ id }"), 404: failure("no such run, or no baseline for it") },
        },
      },
      "/api/runs/{id}/distribution": {
        get: {
          summary:
            "Latency by percentile (0 to 99.99 %, then the maximum), of the whole run and each request",
          parameters: idParam,
          responses: {
            200: answer("{ total: [{ p, ms }], requests: { NAME: [{ p, ms }] } }"),
            404: failure("no such run"),
          },
        },
      },
      "/api/runs/{id}/heatmap": {
        get: {
          summary: "Each stored second's requests by latency bucket (log-spaced), from the merged histograms",
          parameters: idParam,
          responses: {
            200: answer("{ seconds: [s], edgesMs: [ms], counts: [[n]] }"),
            404: failure("no such run"),
          },
        },
      },
      "/api/runs/{id}/pin": {
        post: {
          summary: "Make a finished run the baseline of its name",
          parameters: idParam,
          responses: {
            200: answer("{ id, name, pinned }"),
            404: failure("no such run"),
            409: failure("not finished"),
          },
        },
      },
      "/api/runs/{id}/files": {
        get: {
          summary:
            "The files a run was sent, by kind: feeders, multipart attachments and scripts (name and size, never the content)",
          parameters: idParam,
          responses: { 200: answer("{ files: [{ kind, name, bytes }] }"), 404: failure("no such run") },
        },
      },
      "/api/runs/{id}/scripts": {
        get: {
          summary: "The sources a scripted run was sent",
          parameters: idParam,
          responses: { 200: answer("{ files: { path: source } }"), 404: failure("no such run") },
        },
      },
      ...teamPaths(),
    },
  };
}

export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  const document = buildOpenApi();
  app.get("/openapi.json", { config: VIEWER_ROUTE }, async () => document);
}
