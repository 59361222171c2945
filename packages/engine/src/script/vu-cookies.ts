import type { VuCookies } from "@volley/script";
import type { CookieJar } from "../http/cookie-jar.js";
import { locate, type ScriptHttpSettings } from "./script-prepare.js";

/** A cookie name: an HTTP token. */
const COOKIE_NAME_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `vu.cookies`: the VU's jar (null with `http.cookies: false`) as a script reads and writes it. */
export function vuCookies(http: ScriptHttpSettings, jar: () => CookieJar | null): VuCookies {
  return {
    get(url) {
      const at = locate(http, String(url));
      const header = jar()?.header(at.host, at.path, at.https) ?? null;
      if (header === null) return {};
      return Object.fromEntries(
        header.split("; ").map((pair) => {
          const eq = pair.indexOf("=");
          return [pair.slice(0, eq), pair.slice(eq + 1)];
        }),
      );
    },
    set(url, name, value) {
      const cookies = jar();
      if (cookies === null) throw new TypeError("vu.cookies.set: cookies are off (http.cookies: false)");
      if (!COOKIE_NAME_RE.test(String(name)))
        throw new TypeError(`vu.cookies.set: "${name}" is not a cookie name`);
      const at = locate(http, String(url));
      cookies.store(`${name}=${String(value).replace(/[;\r\n]/g, "")}; Path=/`, at.host, "/");
    },
    clear() {
      jar()?.clear();
    },
  };
}
