import { humanLogStream } from "@volley/protocol";
import { pino } from "pino";
import { AggregatorNode } from "./aggregator-node.js";
import { type AggregatorOptions, resolveAggregatorOptions } from "./options.js";

export { AggregatorNode } from "./aggregator-node.js";
export { GroupAssembler } from "./group-assembler.js";
export { GroupLedger, memberOf } from "./group-ledger.js";
export { type AggregatorOptions, resolveAggregatorOptions } from "./options.js";

/** Starts an aggregator: it reads its partition's stream until closed. */
export async function startAggregator(options: AggregatorOptions = {}): Promise<AggregatorNode> {
  const resolved = resolveAggregatorOptions(options);
  const log = pino(
    { level: resolved.logLevel, base: { service: "volley-aggregator", partition: resolved.partition } },
    resolved.logFormat === "human"
      ? humanLogStream(process.stdout)
      : pino.destination({ dest: 1, sync: false }),
  );
  const node = new AggregatorNode(resolved, log);
  await node.start();
  return node;
}
