import { parse as parseShell } from "shell-quote";
import { checkSize, ImportError, type Imported, type ImportSource, SMOKE_LOAD } from "../imported.js";
import { base64, bodyFields, splitUrl } from "../request-parts.js";

/** Options that take a value, by every spelling curl accepts. */
const VALUE_OPTIONS: Record<string, string> = {
  "-X": "request",
  "--request": "request",
  "-H": "header",
  "--header": "header",
  "-d": "data",
  "--data": "data",
  "--data-ascii": "data",
  "--data-binary": "data",
  "--data-raw": "data-raw",
  "--data-urlencode": "data-urlencode",
  "--json": "json",
  "-F": "form",
  "--form": "form",
  "--form-string": "form-string",
  "-u": "user",
  "--user": "user",
  "-b": "cookie",
  "--cookie": "cookie",
  "-A": "user-agent",
  "--user-agent": "user-agent",
  "-e": "referer",
  "--referer": "referer",
  "-m": "max-time",
  "--max-time": "max-time",
  "--url": "url",
  // What only changes curl's own output: read, and of no consequence to the request.
  "-o": "output",
  "--output": "output",
  "-w": "output",
  "--write-out": "output",
  "--connect-timeout": "not-carried",
  "--max-redirs": "not-carried",
  // Options with a value that Volley does not take from a command (proxies, certificates, retries).
  ...Object.fromEntries(
    [
      "--retry",
      "--retry-delay",
      "--retry-max-time",
      "-x",
      "--proxy",
      "-U",
      "--proxy-user",
      "--cacert",
      "-E",
      "--cert",
      "--key",
      "-c",
      "--cookie-jar",
      "--resolve",
      "--connect-to",
      "-r",
      "--range",
      "--limit-rate",
      "-T",
      "--upload-file",
      "-K",
      "--config",
      "--interface",
      "--local-port",
    ].map((option) => [option, "not-carried"]),
  ),
};

/** Options without a value that shape the request. */
const FLAG_OPTIONS: Record<string, string> = {
  "-G": "get",
  "--get": "get",
  "-I": "head",
  "--head": "head",
  "-k": "insecure",
  "--insecure": "insecure",
  "-L": "location",
  "--location": "location",
  "--compressed": "compressed",
  "--http2": "http2",
  "--http2-prior-knowledge": "http2-prior-knowledge",
  "--http1.1": "http1.1",
};

/** Options that change only what curl prints. */
const OUTPUT_FLAGS = new Set([
  "-s",
  "--silent",
  "-S",
  "--show-error",
  "-v",
  "--verbose",
  "-i",
  "--include",
  "-f",
  "--fail",
  "--fail-with-body",
  "-#",
  "--progress-bar",
  "-N",
  "--no-buffer",
]);

interface CurlCommand {
  url?: string;
  method?: string;
  headers: Array<[string, string]>;
  data: string[];
  json: string[];
  form: Array<{ name: string; value: string; file: boolean }>;
  flags: Set<string>;
  maxTimeS?: number;
  notes: string[];
}

/** `volley import curl '...'`: one request from a curl command line (as "Copy as cURL" writes it). */
export function importCurl(source: ImportSource): Imported {
  checkSize(source);
  const command = readCommand(source);
  if (command.url === undefined) throw new ImportError(source.name, "no URL: give curl a URL to request");
  const { target, path } = splitUrl(source.name, command.url);
  const headers = Object.fromEntries(command.headers);
  const hasHeader = (name: string) => command.headers.some(([n]) => n.toLowerCase() === name);
  let method = command.method;
  let requestPath = path;
  let body: Record<string, unknown> = {};
  if (command.flags.has("get") && command.data.length > 0) {
    requestPath += (requestPath.includes("?") ? "&" : "?") + command.data.join("&");
  } else if (command.json.length > 0) {
    body = bodyFields(command.json.join(""), "application/json");
    if (!hasHeader("accept")) headers.accept = "application/json";
    method ??= "POST";
  } else if (command.data.length > 0) {
    const type = headerValue(command.headers, "content-type") ?? "application/x-www-form-urlencoded";
    body = bodyFields(command.data.join("&"), type);
    // The body fields say the type (form, json) themselves; a plain body keeps the given header.
    if ("form" in body || "json" in body) deleteHeader(headers, "content-type");
    method ??= "POST";
  } else if (command.form.length > 0) {
    body = { multipart: multipart(command.form) };
    deleteHeader(headers, "content-type");
    method ??= "POST";
  }
  if (command.flags.has("head")) method = "HEAD";
  const http: Record<string, unknown> = {};
  if (command.flags.has("insecure")) http.insecureTls = true;
  if (command.flags.has("location")) http.followRedirects = 10;
  if (command.flags.has("compressed")) {
    http.compression = true;
    deleteHeader(headers, "accept-encoding");
  }
  if (command.flags.has("http2")) http.version = target.startsWith("https:") ? "2" : "2c";
  if (command.flags.has("http2-prior-knowledge")) http.version = "2c";
  const request: Record<string, unknown> = {
    name: `${method ?? "GET"} ${requestPath.split("?")[0]}`.slice(0, 200),
    method: method ?? "GET",
    path: requestPath,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...body,
    ...(command.maxTimeS !== undefined ? { timeout: `${Math.round(command.maxTimeS * 1000)}ms` } : {}),
  };
  return {
    scenario: {
      name: "curl",
      target,
      load: SMOKE_LOAD,
      ...(Object.keys(http).length > 0 ? { http } : {}),
      requests: [request],
    },
    notes: command.notes,
  };
}

function readCommand(source: ImportSource): CurlCommand {
  // A command copied over several lines: backslash-newline continues it (cmd.exe's ^ too).
  const text = source.text.replace(/\\\r?\n/g, " ").replace(/\^\r?\n/g, " ");
  const words = parseShell(text);
  const command: CurlCommand = { headers: [], data: [], json: [], form: [], flags: new Set(), notes: [] };
  let at = 0;
  const next = (option: string): string => {
    const value = words[++at];
    if (typeof value !== "string") throw new ImportError(source.name, `${option} needs a value`);
    return value;
  };
  if (words[0] === "curl") at = 1;
  else if (typeof words[0] === "string" && words[0].endsWith("/curl")) at = 1;
  for (; at < words.length; at++) {
    const word = words[at];
    if (typeof word !== "string") {
      throw new ImportError(
        source.name,
        "holds shell operators (a pipe, a redirection or ;): give one curl command",
      );
    }
    const [option, attached] = splitOption(word);
    if (VALUE_OPTIONS[option] !== undefined) {
      apply(source, command, VALUE_OPTIONS[option], attached ?? next(option), option);
    } else if (FLAG_OPTIONS[option] !== undefined) {
      command.flags.add(FLAG_OPTIONS[option]);
    } else if (OUTPUT_FLAGS.has(option)) {
      // curl's own output: nothing to carry over.
    } else if (/^-[a-zA-Z#]{2,}$/.test(word) && [...word.slice(1)].every((c) => isShortFlag(`-${c}`))) {
      for (const c of word.slice(1)) {
        const flag = FLAG_OPTIONS[`-${c}`];
        if (flag !== undefined) command.flags.add(flag);
      }
    } else if (word.startsWith("-")) {
      command.notes.push(`curl's ${option} is not carried over`);
    } else if (command.url === undefined) {
      command.url = word;
    } else {
      command.notes.push(`a second URL (${word.slice(0, 200)}) is not carried over: one request per import`);
    }
  }
  return command;
}

function isShortFlag(option: string): boolean {
  return FLAG_OPTIONS[option] !== undefined || OUTPUT_FLAGS.has(option);
}

/** `-XPOST`, `--request=POST` and `-X POST` alike: the option and a value written in the same word. */
function splitOption(word: string): [string, string | undefined] {
  if (word.startsWith("--")) {
    const eq = word.indexOf("=");
    return eq > 0 ? [word.slice(0, eq), word.slice(eq + 1)] : [word, undefined];
  }
  if (/^-[a-zA-Z]./.test(word) && VALUE_OPTIONS[word.slice(0, 2)] !== undefined)
    return [word.slice(0, 2), word.slice(2)];
  return [word, undefined];
}

function apply(source: ImportSource, command: CurlCommand, kind: string, value: string, option: string) {
  switch (kind) {
    case "request":
      command.method = value.toUpperCase();
      return;
    case "header": {
      const colon = value.indexOf(":");
      // "Name;" sends an empty header in curl; "Name:" removes one curl adds itself.
      if (colon < 0 && value.endsWith(";")) command.headers.push([value.slice(0, -1).trim(), ""]);
      else if (colon > 0 && value.slice(colon + 1).trim() !== "")
        command.headers.push([value.slice(0, colon).trim(), value.slice(colon + 1).trim()]);
      else if (colon <= 0) throw new ImportError(source.name, `${option} "${value}" is not "Name: value"`);
      return;
    }
    case "data":
    case "data-raw":
      if (kind === "data" && value.startsWith("@")) {
        command.notes.push(
          `${option} ${value} reads a file: its content is not in the scenario, add it as body`,
        );
        return;
      }
      // curl --data drops CR and LF from what it sends; --data-binary and --data-raw keep them.
      command.data.push(option === "-d" || option === "--data" ? value.replace(/[\r\n]/g, "") : value);
      return;
    case "data-urlencode": {
      const eq = value.indexOf("=");
      command.data.push(
        eq < 0
          ? encodeURIComponent(value)
          : `${value.slice(0, eq)}${eq > 0 ? "=" : ""}${encodeURIComponent(value.slice(eq + 1))}`,
      );
      return;
    }
    case "json":
      command.json.push(value);
      return;
    case "form":
    case "form-string": {
      const eq = value.indexOf("=");
      if (eq <= 0) throw new ImportError(source.name, `${option} "${value}" is not "name=value"`);
      const given = value.slice(eq + 1);
      command.form.push({
        name: value.slice(0, eq),
        value: kind === "form" && given.startsWith("@") ? given.slice(1) : given,
        file: kind === "form" && given.startsWith("@"),
      });
      return;
    }
    case "user":
      command.headers.push(["authorization", `Basic ${base64(value.includes(":") ? value : `${value}:`)}`]);
      return;
    case "cookie":
      if (value.includes("=")) command.headers.push(["cookie", value]);
      else command.notes.push(`${option} ${value} names a cookie file: its cookies are not carried over`);
      return;
    case "user-agent":
      command.headers.push(["user-agent", value]);
      return;
    case "referer":
      command.headers.push(["referer", value]);
      return;
    case "max-time": {
      const seconds = Number(value);
      if (!(seconds > 0))
        throw new ImportError(source.name, `${option} "${value}" is not a number of seconds`);
      command.maxTimeS = seconds;
      return;
    }
    case "url":
      command.url = value;
      return;
    case "not-carried":
      command.notes.push(`curl's ${option} ${value} is not carried over`);
      return;
    default:
      return;
  }
}

/** `-F name=value`, `-F file=@path;type=image/png`: text fields and files of a multipart body. */
function multipart(form: CurlCommand["form"]): Record<string, unknown> {
  const parts: Record<string, unknown> = {};
  for (const field of form) {
    if (!field.file) {
      parts[field.name] = field.value;
      continue;
    }
    const [file, ...attributes] = field.value.split(";");
    const type = attributes.find((a) => a.startsWith("type="))?.slice(5);
    const filename = attributes.find((a) => a.startsWith("filename="))?.slice(9);
    parts[field.name] = {
      file,
      ...(type ? { contentType: type } : {}),
      ...(filename ? { filename } : {}),
    };
  }
  return parts;
}

function headerValue(headers: Array<[string, string]>, name: string): string | undefined {
  return headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

function deleteHeader(headers: Record<string, string>, name: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) delete headers[key];
}
