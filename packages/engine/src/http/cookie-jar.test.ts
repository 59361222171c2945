import { describe, expect, it } from "vitest";
import { CookieJar } from "./cookie-jar.js";

describe("CookieJar", () => {
  it("sends host-only cookies back to their host and path, longest path first", () => {
    const jar = new CookieJar();
    jar.store("sid=abc; Path=/; HttpOnly", "shop.test", "/login");
    jar.store("cart=1; Path=/cart", "shop.test", "/cart/add");
    expect(jar.header("shop.test", "/cart/view?x=1", false)).toBe("cart=1; sid=abc");
    expect(jar.header("shop.test", "/cartography", false)).toBe("sid=abc");
    expect(jar.header("other.test", "/", false)).toBeNull();
    expect(jar.header("api.shop.test", "/", false)).toBeNull(); // host-only
  });

  it("takes a Domain for the host or a parent, never another site", () => {
    const jar = new CookieJar();
    jar.store("a=1; Domain=.shop.test", "www.shop.test", "/");
    jar.store("b=2; Domain=evil.test", "www.shop.test", "/");
    expect(jar.header("api.shop.test", "/", false)).toBe("a=1");
    expect(jar.header("evil.test", "/", false)).toBeNull();
  });

  it("replaces by name, domain and path; Max-Age wins over Expires; past dates delete", () => {
    const jar = new CookieJar();
    const now = 1_000_000;
    jar.store("t=old", "h", "/", now);
    jar.store("t=new", "h", "/", now);
    expect(jar.header("h", "/", false, now)).toBe("t=new");
    jar.store("m=1; Max-Age=10; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "h", "/", now);
    expect(jar.header("h", "/", false, now + 5_000)).toBe("t=new; m=1");
    expect(jar.header("h", "/", false, now + 11_000)).toBe("t=new");
    jar.store("t=gone; Max-Age=0", "h", "/", now);
    expect(jar.size).toBe(0);
  });

  it("keeps Secure cookies to https and defaults the path to the request's directory", () => {
    const jar = new CookieJar();
    jar.store("s=1; Secure", "h", "/a/b/login");
    expect(jar.header("h", "/a/b/next", false)).toBeNull();
    expect(jar.header("h", "/a/b/next", true)).toBe("s=1");
    expect(jar.header("h", "/a/other", true)).toBeNull();
  });
});
