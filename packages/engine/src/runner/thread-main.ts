import { parentPort, workerData } from "node:worker_threads";
import { Partition, parseScenario } from "@volley/protocol";
import { loadScripts } from "../script/load-scripts.js";
import { SliceEngine } from "./slice-engine.js";
import type { FromThread, ThreadStart, ToThread } from "./thread-messages.js";

// Entry of one engine thread: runs its slice and posts one message a second to the worker.
const port = parentPort;
if (!port) throw new Error("thread-main must run in a worker thread");
const post = (message: FromThread) => port.postMessage(message);
const start = workerData as ThreadStart;

try {
  const engine = new SliceEngine({
    scenario: parseScenario(start.scenario),
    partition: new Partition(start.partition),
    startAtEpochMs: start.startAtEpochMs,
    workerName: start.workerName,
    data: start.data,
    attachments: start.attachments,
    env: start.env,
    scripts: await loadScripts(start.scripts, start.setupData),
    onPeriod: (period) => post({ type: "period", period }),
  });
  port.on("message", (message: ToThread) => {
    if (message.type === "stop") engine.stop();
  });
  post({ type: "ready" });
  await engine.run();
  post({ type: "done" });
  port.close();
} catch (error) {
  post({ type: "failed", message: (error as Error).message });
  port.close();
}
