import { setTimeout as sleep } from "node:timers/promises";
import { bounded, type DemoRequest, type DemoResponse, readBody, sendJson, sendText } from "./http-kit.js";
import type { ShopState } from "./shop-state.js";

const ITEMS = ["A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8"];

/**
 * What anyone may read: items, products (with price, stock and reviews), search, an upload, a
 * slow and a flaky endpoint, the shop's counts and its home page. True when the path is one of
 * them (the answer sent), false otherwise.
 */
export async function catalogRoute(
  state: ShopState,
  req: DemoRequest,
  res: DemoResponse,
  url: URL,
): Promise<boolean> {
  const method = req.method ?? "GET";
  const path = url.pathname;
  if (method !== "GET" && method !== "HEAD" && path !== "/upload") return false;
  const item = /^\/items\/([^/]+)$/.exec(path);
  const apiItem = /^\/api\/items\/(\d+)$/.exec(path);
  const product = /^\/products\/(\d+)(?:\/(price|stock|reviews))?$/.exec(path);
  if (item) {
    sendJson(req, res, 200, { sku: decodeURIComponent(item[1]), name: `Item ${item[1]}`, price: 9.5 });
  } else if (apiItem) {
    const id = Number(apiItem[1]);
    // Ids above 5,000 do not exist: a test that expects [200, 404] sees both.
    if (id > 5000) sendJson(req, res, 404, { error: `no item ${id}` });
    else sendJson(req, res, 200, { id, name: `Item ${id}`, stock: id % 17 });
  } else if (product) {
    const id = Number(product[1]);
    const part = product[2];
    if (part === undefined) sendJson(req, res, 200, { id, name: `Product ${id}` });
    else if (part === "price") sendJson(req, res, 200, { id, price: 10 + (id % 90) });
    else if (part === "stock") sendJson(req, res, 200, { id, stock: id % 23 });
    else {
      const limit = bounded(url.searchParams.get("limit"), 10, 1, 50);
      sendJson(
        req,
        res,
        200,
        Array.from({ length: limit }, (_, i) => ({ id: i + 1, stars: 1 + ((id + i) % 5) })),
      );
    }
  } else if (path === "/search") {
    const q = url.searchParams.get("q") ?? "";
    const results = ITEMS.flatMap((sku) => [1, 2, 3].map((n) => ({ sku, title: `${q} ${sku}-${n}`.trim() })));
    sendJson(req, res, 200, { q, results });
  } else if (method === "POST" && path === "/upload") {
    const body = await readBody(req);
    sendJson(req, res, 201, { bytes: body.length, type: String(req.headers["content-type"] ?? "") });
  } else if (path === "/slow") {
    await sleep(bounded(url.searchParams.get("ms"), 500, 0, 10_000));
    sendJson(req, res, 200, { slow: true });
  } else if (path === "/flaky") {
    // Fails `rate` of the time (default 10 %): what an error rate threshold is for.
    const rate = bounded(url.searchParams.get("rate"), 0.1, 0, 1);
    if (Math.random() < rate) sendJson(req, res, 503, { error: "flaky by design" });
    else sendJson(req, res, 200, { ok: true });
  } else if (path === "/health") {
    sendJson(req, res, 200, { status: "ok" });
  } else if (path === "/stats") {
    sendJson(req, res, 200, { signedIn: state.signedIn, ordersPlaced: state.ordersPlaced });
  } else if (path === "/") {
    sendText(res, 200, HOME, "text/html");
  } else {
    return false;
  }
  return true;
}

const HOME = `<!doctype html><title>Volley demo shop</title>
<h1>Volley demo shop</h1>
<p>A target for your first tests: every file in Volley's examples/ runs against it.</p>
<ul>
<li>POST /login {"user": "u1"} → {"token"} (and a session cookie)</li>
<li>POST /orders, GET /orders?page=N, GET /orders/latest, POST /cart, POST /pay (signed in)</li>
<li>GET /items/SKU, /api/items/ID (404 above 5000), /products/ID[/price|/stock|/reviews], /search?q=</li>
<li>POST /upload (multipart), GET /slow?ms=500, GET /flaky?rate=0.1, GET /health</li>
<li>/nacos/v1/ns/instance (a service registry), POST /v1/chat/completions (an SSE token stream)</li>
<li>WebSocket /chat (echo) and /feed (prices, signed in); HTTP/2 without TLS (h2c) on the same port</li>
<li>gRPC volley.example.Greeter (examples/protos/greeter.proto) on its own port</li>
</ul>`;
