import { createHmac, timingSafeEqual } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  bounded,
  cookie,
  type DemoRequest,
  type DemoResponse,
  fields,
  readBody,
  sendJson,
} from "./http-kit.js";
import type { ShopState } from "./shop-state.js";

/** What the shop's routes share: its memory and the key order signatures are checked with. */
export interface ShopContext {
  state: ShopState;
  signingKey: string;
}

/** The signed-in user of a request: a bearer token or the `session` cookie the login set. */
function signedIn(ctx: ShopContext, req: DemoRequest) {
  const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
  return ctx.state.session(bearer ?? cookie(req, "session"));
}

/** `x-signature`, when sent, must be the HMAC-SHA256 (hex) of the body with the signing key. */
function signatureHolds(ctx: ShopContext, req: DemoRequest, body: Buffer): boolean {
  const signature = req.headers["x-signature"];
  if (signature === undefined) return true;
  const expected = createHmac("sha256", ctx.signingKey).update(body).digest();
  const given = Buffer.from(String(signature), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The shop's signed-in routes: a login that hands out tokens (and a session cookie), orders,
 * a cart and payment. True when the path is one of them (the answer sent), false otherwise.
 */
export async function shopRoute(
  ctx: ShopContext,
  req: DemoRequest,
  res: DemoResponse,
  url: URL,
): Promise<boolean> {
  const method = req.method ?? "GET";
  const path = url.pathname;
  if (method === "POST" && path === "/login") {
    const { user } = fields(req, await readBody(req));
    if (typeof user !== "string" || user.length === 0) {
      sendJson(req, res, 400, { error: "give a user (JSON or form)" });
      return true;
    }
    const token = ctx.state.signIn(user);
    res.setHeader("set-cookie", `session=${token}; Path=/; HttpOnly`);
    sendJson(req, res, 200, { token, user });
    return true;
  }
  if (path === "/orders" || path === "/orders/latest" || path === "/cart" || path === "/pay") {
    const body = method === "POST" ? await readBody(req) : Buffer.alloc(0);
    const session = signedIn(ctx, req);
    if (session === undefined) {
      sendJson(req, res, 401, {
        error: "log in first: POST /login, then send the token (Bearer) or the cookie",
      });
    } else if (method === "POST" && path === "/orders") {
      if (!signatureHolds(ctx, req, body)) {
        sendJson(req, res, 401, { error: "x-signature is not the HMAC-SHA256 of the body" });
        return true;
      }
      const { item, sku, qty } = fields(req, body);
      sendJson(
        req,
        res,
        200,
        ctx.state.placeOrder(session, String(item ?? sku ?? "A1"), Number(qty ?? 1) || 1),
      );
    } else if (method === "GET" && path === "/orders") {
      // Ten orders a page; a page past the last is empty (204), as a paging client expects.
      const page = bounded(url.searchParams.get("page"), 0, 0, 1000);
      const orders = session.orders.slice(page * 10, page * 10 + 10);
      if (orders.length === 0 && page > 0) res.writeHead(204).end();
      else sendJson(req, res, 200, orders);
    } else if (method === "GET" && path === "/orders/latest") {
      sendJson(req, res, 200, session.orders.at(-1) ?? { id: null });
    } else if (method === "POST" && path === "/cart") {
      const { sku, qty } = fields(req, body);
      sendJson(req, res, 200, {
        lines: ctx.state.addToCart(session, String(sku ?? "A1"), Number(qty ?? 1) || 1),
      });
    } else if (method === "POST" && path === "/pay") {
      await sleep(20 + Math.random() * 30);
      sendJson(req, res, 200, { paid: true, method: fields(req, body).method ?? "card" });
    } else {
      sendJson(req, res, 405, { error: `${method} is not allowed on ${path}` });
    }
    return true;
  }
  return false;
}
