// A chat client: each iteration joins, says three things and waits for each to come back,
// then leaves. The handshake ("chat"), each reply ("chat.reply", timed from the send) and the
// socket's messages and bytes are measured; see docs/websocket.md.
import type { Vu } from "@volley/script";

export default async function (vu: Vu) {
  const ws = await vu.ws.connect("/chat", { name: "chat" });
  for (let i = 0; i < 3; i++) {
    const text = `hi from ${vu.number} (${vu.iteration}.${i})`;
    ws.send(text);
    const reply = await ws.next({ match: text, name: "chat.reply", timeout: 2000 });
    vu.check("heard back", typeof reply === "string");
    await vu.sleep(200);
  }
  await ws.close();
}
