// A scripted shopper measured beyond its requests: how long the whole cart took (a trend), the
// orders placed (a counter), how often the product was in stock (a rate) and the last product
// page's size (a gauge). With `http.tracing` in traced-cart.yaml every request carries a
// `traceparent`, and the report keeps the slowest requests' trace ids. docs/scripting.md
// ("Custom metrics") explains the API.
import type { Vu } from "@volley/script";

export default async function (vu: Vu) {
  const started = performance.now();
  const login = await vu.http.post("/login", { json: { user: `u${vu.number}` }, name: "login" });
  if (!vu.check("logged in", login.status === 200)) return;
  const auth = { authorization: `Bearer ${login.json<{ token: string }>().token}` };

  // The product page. A real shop would say in its answer whether the item can be bought; here
  // sku A3 stands for one that is sold out.
  const sku = `A${vu.iteration % 4}`;
  const product = await vu.http.get(`/items/${sku}`, { name: "product" });
  vu.metrics.gauge("product_bytes").set(product.body.length);
  const inStock = product.status === 200 && sku !== "A3";
  vu.metrics.rate("in_stock").add(inStock);

  if (inStock) {
    const placed = await vu.http.post("/orders", {
      json: { sku, qty: 1 },
      headers: auth,
      name: "place order",
    });
    if (vu.check("order accepted", placed.status === 200)) vu.metrics.counter("orders").add();
  }
  vu.metrics.trend("cart_ms").add(performance.now() - started);
}
