import { type RequestConfig, requestName, type WsStep, wsExchangeName } from "@volley/protocol";
import { basicAuthorization } from "../http/basic-auth.js";
import { CompiledTemplate, type TemplateEnvironment } from "./compiled-template.js";

/** A step of a `ws:` request, its texts parsed once. */
export type CompiledWsStep =
  | { kind: "send"; text: CompiledTemplate }
  | { kind: "expect"; text: CompiledTemplate; name: string; timeoutMs: number }
  | { kind: "sleep"; ms: number }
  | { kind: "close" };

/** A `ws:` request prepared for the VUs: where it connects, with which headers, and its steps. */
export interface CompiledWs {
  /** The socket's full URL (ws:// or wss://), templates inside. */
  url: CompiledTemplate;
  headerNames: string[];
  headerValues: CompiledTemplate[];
  steps: CompiledWsStep[];
  timeoutMs: number;
}

function compileStep(
  step: WsStep,
  name: string,
  timeoutMs: number,
  environment?: TemplateEnvironment,
): CompiledWsStep {
  if ("send" in step) return { kind: "send", text: new CompiledTemplate(step.send, "none", environment) };
  if ("expect" in step) {
    return {
      kind: "expect",
      text: new CompiledTemplate(step.expect, "none", environment),
      name: wsExchangeName(name, step),
      timeoutMs: step.timeout ?? timeoutMs,
    };
  }
  if ("sleep" in step) return { kind: "sleep", ms: step.sleep };
  return { kind: "close" };
}

/**
 * A `ws:` request compiled against the scenario's target: a path goes to the target's host (ws://
 * for http://, wss:// for https://, under the target's path prefix, query appended); the
 * target's or the URL's credentials travel as Basic authentication.
 */
export function compileWs(
  request: RequestConfig & { ws: string },
  target: URL,
  defaultTimeoutMs: number,
  environment?: TemplateEnvironment,
): CompiledWs {
  let url: string;
  let credentials: URL;
  if (request.ws.startsWith("/")) {
    const scheme = target.protocol === "https:" ? "wss:" : "ws:";
    url = `${scheme}//${target.host}${target.pathname.replace(/\/$/, "")}${request.ws}`;
    credentials = target;
  } else {
    url = request.ws;
    credentials = new URL(/^wss?:\/\/[^/]+/.exec(request.ws)?.[0] ?? request.ws);
  }
  const query = Object.entries(request.query ?? {});
  if (query.length > 0) {
    const pairs = query
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join("&");
    url += `${url.includes("?") ? "&" : "?"}${pairs}`;
  }
  const headers = Object.entries(request.headers ?? {}).map(([n, v]) => [n.toLowerCase(), v] as const);
  const authorization = basicAuthorization(credentials);
  if (authorization !== null && !headers.some(([n]) => n === "authorization")) {
    headers.push(["authorization", authorization]);
  }
  const timeoutMs = request.timeout ?? defaultTimeoutMs;
  const name = requestName(request);
  return {
    url: new CompiledTemplate(url, "none", environment),
    headerNames: headers.map(([n]) => n),
    headerValues: headers.map(([, v]) => new CompiledTemplate(v, "none", environment)),
    steps: (request.steps ?? []).map((step) => compileStep(step, name, timeoutMs, environment)),
    timeoutMs,
  };
}
