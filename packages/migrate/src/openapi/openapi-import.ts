import { parse as parseYaml, YAMLParseError } from "yaml";
import { field, listOf } from "../fields.js";
import {
  checkSize,
  DEFAULT_TARGET,
  defaultTargetNote,
  ImportError,
  type Imported,
  type ImportSource,
  MAX_IMPORTED_REQUESTS,
  requestName,
  SMOKE_LOAD,
} from "../imported.js";
import { formFields } from "../request-parts.js";
import { SchemaExamples } from "./schema-example.js";
import { SecurityTemplates } from "./security.js";

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch"]);

/** `volley import openapi`: one request per operation, a smoke scenario over the whole API. */
export function importOpenapi(source: ImportSource): Imported {
  checkSize(source);
  const document = readDocument(source);
  const version = String(field(document, "openapi") ?? "");
  if (field(document, "swagger") !== undefined)
    throw new ImportError(
      source.name,
      "is Swagger 2.0: convert it to OpenAPI 3 first (e.g. swagger2openapi)",
    );
  if (!/^3\.[01]\./.test(version))
    throw new ImportError(source.name, `openapi: "${version}" is not 3.0 or 3.1 (or the field is missing)`);
  const paths = field(document, "paths");
  if (typeof paths !== "object" || paths === null || Object.keys(paths).length === 0)
    throw new ImportError(source.name, "has no paths: nothing to import");
  const notes: string[] = [];
  const examples = new SchemaExamples(document);
  const { target, basePath } = server(document, notes);
  const security = new SecurityTemplates(document, examples);
  const requests: unknown[] = [];
  for (const [pathTemplate, rawItem] of Object.entries(paths)) {
    const item = examples.resolve(rawItem);
    if (field(item, "trace") !== undefined)
      notes.push(`TRACE ${pathTemplate} left out: Volley does not send TRACE`);
    // In the order the description lists them.
    for (const method of Object.keys((item as object | undefined) ?? {}).filter(isMethod)) {
      const operation = field(item, method);
      if (requests.length >= MAX_IMPORTED_REQUESTS)
        throw new ImportError(source.name, `more than ${MAX_IMPORTED_REQUESTS} operations`);
      const parameters = [
        ...listOf(field(item, "parameters")),
        ...listOf(field(operation, "parameters")),
      ].map((p) => examples.resolve(p));
      const auth = security.headersFor(operation);
      requests.push(
        operationRequest(method, basePath + pathTemplate, operation, parameters, examples, auth, notes),
      );
    }
  }
  if (requests.length === 0) throw new ImportError(source.name, "has paths but no operations");
  notes.push(...security.notes);
  if (security.env.size > 0)
    notes.push(`credentials come from the environment: ${[...security.env].join(", ")}`);
  const info = field(document, "info");
  return {
    scenario: {
      name: requestName(String(field(info, "title") ?? "openapi")),
      target,
      ...(security.env.size > 0 ? { env: [...security.env] } : {}),
      load: SMOKE_LOAD,
      requests,
    },
    notes,
  };
}

function isMethod(key: string): boolean {
  return METHODS.has(key);
}

function readDocument(source: ImportSource): unknown {
  try {
    return parseYaml(source.text, { prettyErrors: true, maxAliasCount: 1000 });
  } catch (error) {
    const line = error instanceof YAMLParseError ? error.linePos?.[0].line : undefined;
    throw new ImportError(source.name, `not YAML or JSON: ${(error as Error).message.split("\n")[0]}`, line);
  }
}

function operationRequest(
  method: string,
  pathTemplate: string,
  operation: unknown,
  parameters: unknown[],
  examples: SchemaExamples,
  auth: { headers: Record<string, string>; query: Record<string, string> },
  notes: string[],
): Record<string, unknown> {
  // An operation's own parameter replaces the path item's of the same name and place.
  const byKey = new Map<string, unknown>();
  for (const p of parameters) byKey.set(`${field(p, "in")}:${field(p, "name")}`, p);
  let path = pathTemplate;
  const query: Record<string, string | number | boolean> = { ...auth.query };
  const headers: Record<string, string> = { ...auth.headers };
  for (const p of byKey.values()) {
    const name = String(field(p, "name"));
    const place = field(p, "in");
    const required = field(p, "required") === true || place === "path";
    const hasExample =
      field(p, "example") !== undefined ||
      field(p, "examples") !== undefined ||
      field(examples.resolve(field(p, "schema")), "example") !== undefined;
    if (!required && !hasExample) continue;
    const value = scalar(examples.exampleOf(p));
    if (place === "path") path = path.replaceAll(`{${name}}`, encodeURIComponent(String(value)));
    else if (place === "query") query[name] = value;
    else if (place === "header") headers[name.toLowerCase()] = String(value);
    else if (place === "cookie")
      notes.push(`${method.toUpperCase()} ${pathTemplate}: cookie ${name} left out`);
  }
  const { contentType, ...body } = requestBody(
    method,
    pathTemplate,
    examples.resolve(field(operation, "requestBody")),
    examples,
    notes,
  );
  if (typeof contentType === "string") headers["content-type"] = contentType;
  const operationId = field(operation, "operationId");
  const request: Record<string, unknown> = {
    name: requestName(
      typeof operationId === "string" ? operationId : `${method.toUpperCase()} ${pathTemplate}`,
    ),
    method: method.toUpperCase(),
    path,
    ...(Object.keys(query).length > 0 ? { query } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...body,
  };
  const success = Object.keys((field(operation, "responses") as object | undefined) ?? {})
    .filter((code) => /^2\d\d$/.test(code))
    .map(Number);
  request.expect = { status: success.length > 0 ? success : "2xx" };
  return request;
}

function requestBody(
  method: string,
  path: string,
  body: unknown,
  examples: SchemaExamples,
  notes: string[],
): Record<string, unknown> {
  const content = field(body, "content");
  if (typeof content !== "object" || content === null) return {};
  const types = Object.keys(content);
  const json = types.find((t) => /[/+]json\b/i.test(t));
  if (json !== undefined) return { json: examples.exampleOf(field(content, json)) ?? {} };
  const formType = types.find((t) => t.startsWith("application/x-www-form-urlencoded"));
  if (formType !== undefined) {
    const value = examples.exampleOf(field(content, formType));
    const form = formFields(new URLSearchParams(flat(value)).toString());
    if (form) return { form };
  }
  const text = types.find((t) => t.startsWith("text/"));
  if (text !== undefined) {
    const value = examples.exampleOf(field(content, text));
    return { body: String(value ?? ""), contentType: text };
  }
  notes.push(`${method.toUpperCase()} ${path}: a ${types[0] ?? "body"} body is not made; add it by hand`);
  return {};
}

/** The first `servers` entry with its variables' defaults: the target, and a path every operation starts with. */
function server(document: unknown, notes: string[]): { target: string; basePath: string } {
  const first = listOf(field(document, "servers"))[0];
  let url = String(field(first, "url") ?? "");
  const variables = field(first, "variables");
  if (typeof variables === "object" && variables !== null) {
    for (const [name, variable] of Object.entries(variables))
      url = url.replaceAll(`{${name}}`, String(field(variable, "default") ?? ""));
  }
  if (!/^https?:\/\//.test(url)) {
    notes.push(defaultTargetNote(`the API's server ${url ? `"${url}" is relative` : "is not given"}`));
    return { target: DEFAULT_TARGET, basePath: url.startsWith("/") ? url.replace(/\/$/, "") : "" };
  }
  const parsed = new URL(url);
  return { target: parsed.origin, basePath: parsed.pathname.replace(/\/$/, "") };
}

/** A parameter's value as a query or path item: objects and lists written as JSON text. */
function scalar(value: unknown): string | number | boolean {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value) && value.every((v) => typeof v !== "object")) return value.join(",");
  return value === null || value === undefined ? "1" : JSON.stringify(value);
}

function flat(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(scalar(v))]));
}
