/** One stored cookie (RFC 6265 section 5.3, the parts a load test meets). */
interface Cookie {
  name: string;
  value: string;
  /** Host the cookie came from (host-only) or the Domain attribute, lower case, no leading dot. */
  domain: string;
  hostOnly: boolean;
  path: string;
  secure: boolean;
  /** Epoch ms; Infinity for a session cookie. */
  expires: number;
}

/**
 * A VU's cookies, as a browser keeps them for one user: Domain (host-only unless given, never a
 * different site), Path (default: the request path's directory), Expires and Max-Age (Max-Age
 * wins; a past date deletes), Secure (sent over https only). Small and allocation-light: most
 * VUs hold a handful of cookies, so a list beats a tree.
 */
export class CookieJar {
  private cookies: Cookie[] = [];

  get size(): number {
    return this.cookies.length;
  }

  /** Stores a `Set-Cookie` header value received from `host` for `path`. */
  store(header: string, host: string, path: string, now = Date.now()): void {
    const parts = header.split(";");
    const pair = parts[0];
    const eq = pair.indexOf("=");
    if (eq <= 0) return; // no name: ignored (RFC 6265 5.2 step 5)
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const cookie: Cookie = {
      name,
      value,
      domain: host.toLowerCase(),
      hostOnly: true,
      path: defaultPath(path),
      secure: false,
      expires: Number.POSITIVE_INFINITY,
    };
    let maxAge: number | null = null;
    for (let i = 1; i < parts.length; i++) {
      const attribute = parts[i];
      const at = attribute.indexOf("=");
      const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
      const arg = at < 0 ? "" : attribute.slice(at + 1).trim();
      if (key === "domain" && arg) {
        const domain = arg.replace(/^\./, "").toLowerCase();
        // A site may set a cookie for itself or a parent domain, never for another site.
        if (!domainMatches(cookie.domain, domain)) return;
        cookie.domain = domain;
        cookie.hostOnly = false;
      } else if (key === "path" && arg.startsWith("/")) {
        cookie.path = arg;
      } else if (key === "secure") {
        cookie.secure = true;
      } else if (key === "max-age" && /^-?\d+$/.test(arg)) {
        maxAge = Number(arg);
      } else if (key === "expires" && maxAge === null) {
        const date = Date.parse(arg);
        if (!Number.isNaN(date)) cookie.expires = date;
      }
    }
    if (maxAge !== null) cookie.expires = maxAge <= 0 ? 0 : now + maxAge * 1000;
    const index = this.cookies.findIndex(
      (c) => c.name === name && c.domain === cookie.domain && c.path === cookie.path,
    );
    if (cookie.expires <= now) {
      if (index >= 0) this.cookies.splice(index, 1);
      return;
    }
    if (index >= 0) this.cookies[index] = cookie;
    else this.cookies.push(cookie);
  }

  /** The `Cookie` header for a request, or null when no cookie applies. Longer paths first. */
  header(host: string, path: string, https: boolean, at?: number): string | null {
    if (this.cookies.length === 0) return null;
    // The clock is read only for a jar with cookies (most requests of most runs have none).
    const now = at ?? Date.now();
    const lowerHost = host.toLowerCase();
    const requestPath = pathOnly(path);
    const matching: Cookie[] = [];
    if (this.cookies.some((c) => c.expires <= now))
      this.cookies = this.cookies.filter((c) => c.expires > now);
    for (const cookie of this.cookies) {
      if (cookie.secure && !https) continue;
      if (cookie.hostOnly ? cookie.domain !== lowerHost : !domainMatches(lowerHost, cookie.domain)) continue;
      if (!pathMatches(requestPath, cookie.path)) continue;
      matching.push(cookie);
    }
    if (matching.length === 0) return null;
    matching.sort((a, b) => b.path.length - a.path.length);
    // Longer paths first; equal paths in the order they were set (the sort is stable).
    return matching.map((c) => `${c.name}=${c.value}`).join("; ");
  }

  clear(): void {
    this.cookies = [];
  }
}

function pathOnly(path: string): string {
  const query = path.indexOf("?");
  return query < 0 ? path : path.slice(0, query);
}

/** RFC 6265 5.1.4: the request path up to its last "/", or "/". */
function defaultPath(path: string): string {
  const only = pathOnly(path);
  const slash = only.lastIndexOf("/");
  return slash <= 0 ? "/" : only.slice(0, slash);
}

/** RFC 6265 5.1.3: equal, or a subdomain of it (not an IP address). */
function domainMatches(host: string, domain: string): boolean {
  if (host === domain) return true;
  return host.endsWith(`.${domain}`) && !/^[\d.]+$/.test(host) && !host.includes(":");
}

/** RFC 6265 5.1.4. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/";
}
