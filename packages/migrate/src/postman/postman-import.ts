import { field, listOf } from "../fields.js";
import {
  checkSize,
  DEFAULT_TARGET,
  defaultTargetNote,
  ImportError,
  type Imported,
  type ImportSource,
  MAX_IMPORTED_REQUESTS,
  parseJson,
  requestName,
  SMOKE_LOAD,
} from "../imported.js";
import { bodyFields, CLIENT_HEADERS } from "../request-parts.js";
import { postmanAuth } from "./postman-auth.js";
import { PostmanVariables } from "./postman-variables.js";

interface Walk {
  source: string;
  variables: PostmanVariables;
  notes: string[];
  target?: string;
  count: number;
}

/** `volley import postman`: a Postman collection v2.1, folders as groups, variables as env and templates. */
export function importPostman(source: ImportSource): Imported {
  checkSize(source);
  const collection = parseJson(source, "a Postman collection");
  const info = field(collection, "info");
  const schema = String(field(info, "schema") ?? "");
  if (!Array.isArray(field(collection, "item")))
    throw new ImportError(source.name, "not a Postman collection: no item list");
  if (schema && !schema.includes("v2.1") && !schema.includes("v2.0"))
    throw new ImportError(source.name, `info.schema "${schema}" is not a collection v2.1 (export as v2.1)`);
  const values = new Map<string, string>();
  for (const v of listOf(field(collection, "variable"))) {
    const key = field(v, "key");
    const value = field(v, "value");
    if (typeof key === "string" && value !== undefined && value !== null && value !== "")
      values.set(key, String(value));
  }
  const walk: Walk = { source: source.name, variables: new PostmanVariables(values), notes: [], count: 0 };
  const requests = items(walk, listOf(field(collection, "item")), field(collection, "auth"), []);
  if (walk.count === 0) throw new ImportError(source.name, "holds no request");
  if (walk.target === undefined)
    walk.notes.push(defaultTargetNote("the requests' host is a variable with no value"));
  const env = [...walk.variables.env];
  if (env.length > 0)
    walk.notes.push(
      `variables without a value in the collection come from the environment: ${env.join(", ")}`,
    );
  return {
    scenario: {
      name: requestName(String(field(info, "name") ?? "postman")),
      target: walk.target ?? DEFAULT_TARGET,
      ...(env.length > 0 ? { env } : {}),
      load: SMOKE_LOAD,
      requests,
    },
    notes: [...walk.notes, ...walk.variables.notes],
  };
}

function items(walk: Walk, list: unknown[], inheritedAuth: unknown, folders: string[]): unknown[] {
  const steps: unknown[] = [];
  for (const item of list) {
    const name = String(field(item, "name") ?? "request");
    const auth = field(item, "auth") ?? inheritedAuth;
    scriptsNote(walk, item, [...folders, name].join(" / "));
    if (Array.isArray(field(item, "item"))) {
      const inner = items(walk, field(item, "item") as unknown[], auth, [...folders, name]);
      if (inner.length > 0) steps.push({ group: requestName(name), requests: inner });
    } else if (field(item, "request") !== undefined) {
      if (++walk.count > MAX_IMPORTED_REQUESTS)
        throw new ImportError(walk.source, `more than ${MAX_IMPORTED_REQUESTS} requests`);
      steps.push(postmanRequest(walk, name, field(item, "request"), auth));
    }
  }
  return steps;
}

function postmanRequest(walk: Walk, name: string, request: unknown, inheritedAuth: unknown) {
  const { variables } = walk;
  const written = typeof request === "string" ? request : urlText(field(request, "url"));
  const method = String(field(request, "method") ?? "GET").toUpperCase();
  // `{{baseUrl}}/users` with no baseUrl in the collection: the path goes on the default target.
  const hostVariable = /^\{\{\s*([^{}$]+?)\s*\}\}/.exec(written);
  const raw =
    hostVariable && variables.hasUnknown(hostVariable[0]) ? written.slice(hostVariable[0].length) : written;
  const filled = variables.fill(raw);
  const url = /^https?:\/\//i.test(filled) ? filled : `${DEFAULT_TARGET}/${filled.replace(/^\/+/, "")}`;
  const origin = /^(https?:\/\/[^/?#]+)/i.exec(url)?.[1] ?? DEFAULT_TARGET;
  const rest = url.slice(origin.length) || "/";
  const knownHost = !origin.includes("{{") && url === filled;
  if (walk.target === undefined && knownHost) walk.target = origin;
  const headers: Record<string, string> = {};
  for (const h of listOf(field(request, "header"))) {
    const key = field(h, "key");
    if (typeof key !== "string" || field(h, "disabled") === true) continue;
    if (CLIENT_HEADERS.has(key.toLowerCase())) continue;
    headers[key.toLowerCase()] = variables.fill(String(field(h, "value") ?? ""));
  }
  const auth = field(request, "auth") ?? inheritedAuth;
  Object.assign(headers, postmanAuth(auth, variables, walk.notes, name));
  const body = postmanBody(walk, name, field(request, "body"), headers);
  const sameOrigin = knownHost && origin === walk.target;
  return {
    name: requestName(name),
    method,
    ...(sameOrigin || !knownHost ? { path: rest.startsWith("/") ? rest : `/${rest}` } : { url }),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...body,
  };
}

function postmanBody(walk: Walk, name: string, body: unknown, headers: Record<string, string>) {
  const { variables } = walk;
  const mode = field(body, "mode");
  if (mode === undefined || field(body, "disabled") === true) return {};
  if (mode === "raw") {
    const text = variables.fill(String(field(body, "raw") ?? ""));
    const language = field(field(field(body, "options"), "raw"), "language");
    const type = headers["content-type"] ?? (language === "json" ? "application/json" : "text/plain");
    const fields = bodyFields(text, type);
    if ("json" in fields) delete headers["content-type"];
    else if (text.length > 0) headers["content-type"] = type;
    return fields;
  }
  if (mode === "urlencoded") {
    const form: Record<string, string> = {};
    for (const p of listOf(field(body, "urlencoded")))
      if (field(p, "disabled") !== true)
        form[String(field(p, "key"))] = variables.fill(String(field(p, "value") ?? ""));
    delete headers["content-type"];
    return Object.keys(form).length > 0 ? { form } : {};
  }
  if (mode === "formdata") {
    const multipart: Record<string, unknown> = {};
    for (const p of listOf(field(body, "formdata"))) {
      if (field(p, "disabled") === true) continue;
      const key = String(field(p, "key"));
      if (field(p, "type") === "file") {
        const src = field(p, "src");
        const file = Array.isArray(src) ? src[0] : src;
        if (typeof file === "string" && file.length > 0) multipart[key] = { file };
        else walk.notes.push(`${name}: the file field ${key} names no file: left out`);
      } else multipart[key] = variables.fill(String(field(p, "value") ?? ""));
    }
    delete headers["content-type"];
    return Object.keys(multipart).length > 0 ? { multipart } : {};
  }
  if (mode === "graphql") {
    const graphql = field(body, "graphql");
    const variablesText = String(field(graphql, "variables") ?? "").trim();
    let vars: unknown = {};
    try {
      vars = variablesText ? JSON.parse(variables.fill(variablesText)) : {};
    } catch {
      walk.notes.push(`${name}: the GraphQL variables are not JSON: left out`);
    }
    delete headers["content-type"];
    return { json: { query: variables.fill(String(field(graphql, "query") ?? "")), variables: vars } };
  }
  walk.notes.push(`${name}: a ${String(mode)} body is not carried over; add it by hand`);
  return {};
}

function scriptsNote(walk: Walk, item: unknown, where: string) {
  for (const event of listOf(field(item, "event"))) {
    const exec = field(field(event, "script"), "exec");
    const lines = Array.isArray(exec) ? exec.join("\n") : String(exec ?? "");
    if (lines.trim().length > 0)
      walk.notes.push(
        `${where}: its ${String(field(event, "listen"))} script is not converted (captures and checks go in the scenario)`,
      );
  }
}

/** A v2.1 url: a string, or an object whose `raw` is the whole URL (else built from its parts). */
function urlText(url: unknown): string {
  if (typeof url === "string") return url;
  const raw = field(url, "raw");
  if (typeof raw === "string") return raw;
  const protocol = field(url, "protocol");
  const host = field(url, "host");
  const path = field(url, "path");
  const query = listOf(field(url, "query"))
    .filter((q) => field(q, "disabled") !== true)
    .map((q) => `${String(field(q, "key"))}=${String(field(q, "value") ?? "")}`);
  return `${protocol ? `${String(protocol)}://` : ""}${Array.isArray(host) ? host.join(".") : String(host ?? "")}/${
    Array.isArray(path) ? path.join("/") : String(path ?? "")
  }${query.length > 0 ? `?${query.join("&")}` : ""}`;
}
