/** The HTTP forward proxy a connection goes through, when one applies. */
export interface ProxyRoute {
  /** `http://host:port/` of the proxy, without credentials. */
  url: string;
  host: string;
  port: number;
  /** `Basic ...` from the URL's user and password, or null. */
  authorization: string | null;
  /** The URL as given (credentials included), for clients that read them from it. */
  href: string;
}

/** The proxy setting a scenario gave (`http.proxy`), or what the environment says when it gave none. */
export type ProxySetting = string | false | undefined;

/**
 * Which proxy a connection to `host:port` takes: `http.proxy` for every one, `false` for none;
 * when the scenario says nothing, `HTTPS_PROXY` (secure) or `HTTP_PROXY` (plain) of the worker's
 * environment, unless `NO_PROXY` names the host, as curl reads them.
 */
export function proxyFor(
  setting: ProxySetting,
  host: string,
  port: number,
  secure: boolean,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ProxyRoute | null {
  if (setting === false) return null;
  let href = setting;
  if (href === undefined) {
    href = secure ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
    if (!href || bypassed(env.NO_PROXY ?? env.no_proxy ?? "", host, port)) return null;
    if (!/^[a-z]+:\/\//i.test(href)) href = `http://${href}`;
  }
  const url = new URL(href);
  const authorization =
    url.username === ""
      ? null
      : `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
  return {
    url: `${url.protocol}//${url.host}/`,
    host: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
    port: Number(url.port) || 80,
    authorization,
    href: url.toString(),
  };
}

/** NO_PROXY: `*`, or names (a leading dot or not: the name and its subdomains), each with an optional port. */
function bypassed(list: string, host: string, port: number): boolean {
  const name = host.toLowerCase();
  for (const raw of list.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    const colons = entry.split(":").length - 1;
    const [pattern, entryPort] = entry.startsWith("[")
      ? [entry.slice(1, entry.indexOf("]")), entry.slice(entry.indexOf("]") + 2)]
      : colons === 1
        ? entry.split(":")
        : [entry, ""];
    if (entryPort && Number(entryPort) !== port) continue;
    const bare = pattern.replace(/^\*?\./, "");
    if (name === bare || name.endsWith(`.${bare}`)) return true;
  }
  return false;
}
