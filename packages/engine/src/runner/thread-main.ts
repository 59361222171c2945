import { type MessagePort, workerData } from "node:worker_threads";
import { Partition, parseScenario } from "@volley/protocol";
import { loadScripts } from "../script/load-scripts.js";
import { SliceEngine } from "./slice-engine.js";
import type { FromThread, ThreadStart, ToThread } from "./thread-messages.js";

// Entry of one engine thread: runs its slice and posts one message a second to the worker, on
// the private port of its start data. The port is taken out of the start data before any script
// loads: a script can reach parentPort and workerData, not this port.
const start = workerData as ThreadStart & { port?: MessagePort };
const port = start.port;
if (!port) throw new Error("thread-main must run in an engine thread");
delete start.port;
const post = (message: FromThread) => port.postMessage(message);

try {
  const engine = new SliceEngine({
    scenario: parseScenario(start.scenario),
    partition: new Partition(start.partition),
    startAtEpochMs: start.startAtEpochMs,
    workerName: start.workerName,
    data: start.data,
    uniqueRanges: start.uniqueRanges,
    attachments: start.attachments,
    env: start.env,
    scripts: await loadScripts(start.scripts, start.setupData),
    join: start.join,
    onPeriod: (period) => post({ type: "period", period }),
  });
  port.on("message", (message: ToThread) => {
    if (message.type === "stop") engine.stop();
    else if (message.type === "rebalance") engine.rebalance(message.atMs, message.partition);
    else if (message.type === "release-rows") {
      post({ type: "rows-released", id: message.id, rows: engine.releaseRows(message.share) });
    } else if (message.type === "load") {
      // The master checked the change against the scenario; one this thread cannot apply is
      // reported rather than allowed to end the thread and its measurements.
      try {
        engine.changeLoad(message.change);
      } catch (error) {
        console.error(`volley engine: load change not applied: ${(error as Error).message}`);
      }
    }
  });
  post({ type: "ready" });
  await engine.run();
  post({ type: "done" });
  port.close();
} catch (error) {
  post({ type: "failed", message: (error as Error).message });
  port.close();
}
