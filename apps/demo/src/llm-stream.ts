import { setTimeout as sleep } from "node:timers/promises";
import { type DemoRequest, type DemoResponse, fields, readBody, sendJson } from "./http-kit.js";

const WORDS = ["hello", "there", "from", "the", "volley", "demo", "shop", "have", "a", "good", "test", "run"];

/**
 * `POST /v1/chat/completions` with `"stream": true`, as OpenAI's API streams: Server-Sent Events,
 * one token a chunk, the first after about 100 ms (the model "thinking"), the next 20 ms apart,
 * then `data: [DONE]`. Asked for "N words" in the last message, it says N; otherwise 8.
 */
export async function chatCompletions(req: DemoRequest, res: DemoResponse): Promise<void> {
  const body = fields(req, await readBody(req));
  if (!String(req.headers.authorization ?? "").startsWith("Bearer ")) {
    sendJson(req, res, 401, { error: { message: "give an API key: authorization: Bearer KEY" } });
    return;
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  const asked = /(\d+) words/.exec(String(messages.at(-1)?.content ?? ""))?.[1];
  const count = Math.min(200, Math.max(1, Number(asked ?? 8)));
  if (body.stream !== true) {
    const text = Array.from({ length: count }, (_, i) => WORDS[i % WORDS.length]).join(" ");
    sendJson(req, res, 200, { choices: [{ message: { role: "assistant", content: text } }] });
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let closed = false;
  res.once("close", () => {
    closed = true;
  });
  await sleep(100);
  for (let i = 0; i < count && !closed; i++) {
    const chunk = {
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: `${WORDS[i % WORDS.length]} ` } }],
    };
    // One signature for both servers' responses (HTTP/1.1 and h2c take the same call).
    (res as { write(text: string): boolean }).write(`data: ${JSON.stringify(chunk)}\n\n`);
    await sleep(20);
  }
  if (!closed) res.end("data: [DONE]\n\n");
}
