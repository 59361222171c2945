import { startAggregator } from "@volley/aggregator";
import { intFlag, parseFlags } from "../args.js";
import { waitForSignal } from "../wait-for-signal.js";

export const AGGREGATOR_HELP = `Usage: volley aggregator [options]

Merges the stats batches of the workers routed to it into one batch per run and second for the
master (see docs/architecture.md, "Aggregators"). Masters route new runs' workers over the live
partitions; run one aggregator process per ~500 worker processes.

Options:
  --redis URL        Redis of the master and workers (default REDIS_URL, else redis://127.0.0.1:6379)
  --intake-redis URL a Redis of this partition's own for the workers' batches (reachable from the
                     workers at this URL); the master's Redis then carries only groups
                     (default VOLLEY_AGGREGATOR_INTAKE_REDIS, else none)
  --prefix P         the master's queue prefix (default VOLLEY_QUEUE_PREFIX, else volley)
  --partition ID     the partition (stream) it reads; processes on one partition share its work
                     and take over what one that dies held (default VOLLEY_AGGREGATOR_PARTITION,
                     else the host name)
  --window-ms N      how long a second's group waits for more batches (default 500)
  -h, --help         this help`;

export async function aggregatorCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    redis: { type: "string" },
    "intake-redis": { type: "string" },
    prefix: { type: "string" },
    partition: { type: "string" },
    "window-ms": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(AGGREGATOR_HELP);
    return 0;
  }
  const node = await startAggregator({
    redisUrl: values.redis,
    intakeRedisUrl: values["intake-redis"],
    prefix: values.prefix,
    partition: values.partition,
    windowMs: intFlag("window-ms", values["window-ms"], 10, 10_000),
  });
  await waitForSignal();
  await node.close();
  return 0;
}
