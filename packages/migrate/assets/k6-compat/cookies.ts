/** The host of an absolute URL ("" for a path on the target). */
export function hostOf(url: string): string {
  return /^https?:\/\//.test(url) ? new URL(url).hostname : "";
}

/** Whether a cookie for `domain` (none: the URL's own host) is sent to `url`. */
export function domainMatches(url: string, domain?: string): boolean {
  if (!domain) return true;
  const host = hostOf(url);
  const bare = domain.replace(/^\./, "");
  return host === "" || host === bare || host.endsWith(`.${bare}`);
}

/** k6's local cookie jar: the script's own, apart from the VU's. */
export class LocalCookieJar {
  private readonly cookies: Array<{ name: string; value: string; host: string; domain?: string }> = [];

  set(url: string, name: string, value: string, attributes?: { domain?: string }): void {
    const host = hostOf(url);
    const at = this.cookies.findIndex((c) => c.name === name && c.host === host);
    if (at >= 0) this.cookies.splice(at, 1);
    this.cookies.push({ name, value, host, domain: attributes?.domain });
  }

  cookiesForURL(url: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const c of this.cookies) {
      if (c.domain ? domainMatches(url, c.domain) : c.host === hostOf(url)) out[c.name] = [c.value];
    }
    return out;
  }

  clear(): void {
    this.cookies.length = 0;
  }

  /** What a response set (Volley's VU jar keeps it too). */
  keep(url: string, setCookie: string | undefined): void {
    for (const line of (setCookie ?? "").split("\n")) {
      const pair = line.split(";")[0];
      const eq = pair.indexOf("=");
      if (eq > 0) this.set(url, pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
}
