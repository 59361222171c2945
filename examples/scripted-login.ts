// A scripted VU: log in, poll the order list until a page comes back empty, and sign each order
// with an HMAC of its body (what a declarative scenario cannot compute). Run it with
// `volley run examples/scripted-login.yaml`; docs/scripting.md explains the API.
import { createHmac } from "node:crypto";
import type { Vu } from "@volley/script";

export default async function (vu: Vu) {
  const login = await vu.http.post("/login", { json: { user: `u${vu.number}` }, name: "login" });
  if (!vu.check("logged in", login.status === 200)) return;
  const token = login.json<{ token: string }>().token;
  const auth = { authorization: `Bearer ${token}` };

  // A conditional loop: read pages until one is empty (at most 5).
  for (let page = 0; page < 5; page++) {
    const orders = await vu.http.get(`/orders?page=${page}`, { headers: auth, name: "list orders" });
    if (orders.status === 404 || orders.body.length === 0) break;
  }

  await vu.group("checkout", async () => {
    const body = JSON.stringify({ sku: "A1", qty: 1 + (vu.iteration % 3) });
    const signature = createHmac("sha256", vu.env.SIGNING_KEY ?? "test-key")
      .update(body)
      .digest("hex");
    const placed = await vu.http.post("/orders", {
      body,
      headers: { ...auth, "content-type": "application/json", "x-signature": signature },
      name: "place order",
    });
    vu.check("order accepted", placed.status === 200);
  });
  await vu.sleep(50);
}
