import type { Vu } from "@volley/script";

// One channel per VU (kept across iterations); every call below is one request under its name.
export default async function (vu: Vu) {
  const greeter = vu.grpc.connect({ proto: "protos/greeter.proto" });

  const hello = await greeter.invoke("volley.example.Greeter/SayHello", { name: `user ${vu.number}` });
  vu.check("hello is OK", hello.status === "OK");

  // Ten ticks 20 ms apart: the call lasts about 200 ms, each tick counted as a message received.
  let ticks = 0;
  for await (const _tick of greeter.serverStream(
    "volley.example.Greeter/CountTo",
    { count: 10, gap_ms: 20 },
    { name: "countdown" },
  )) {
    ticks++;
  }
  vu.check("ten ticks", ticks === 10);

  const sum = greeter.clientStream("volley.example.Greeter/Sum", { name: "sum" });
  for (let i = 1; i <= 5; i++) sum.send({ value: i });
  sum.end();
  for await (const total of sum) vu.check("sum is 15", String(total.sum) === "15");

  const chat = greeter.bidiStream("volley.example.Greeter/Chat", { name: "chat" });
  chat.send({ name: "hi" });
  chat.end();
  for await (const reply of chat) vu.check("echoed", reply.message === "echo: hi");
}
