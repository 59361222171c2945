// Its own module: `volley worker` and `volley aggregator` wait for a signal too, and importing
// it from the master's command loaded the whole master (Fastify, Prisma and its query compiler,
// the script type checker's TypeScript) into every worker: 25 MB of its heap, 70 MB of its RSS.

/**
 * Resolves on the first SIGINT or SIGTERM. The shutdown that follows is not cut short by the same
 * signal arriving again within a second (a Ctrl-C reaches both `pnpm start` and this process, and
 * the wrapper passes it on too); a later one, the user insisting, leaves at once (exit 130).
 */
export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first = 0;
    const done = (signal: NodeJS.Signals) => {
      if (first === 0) {
        first = Date.now();
        resolve(signal);
      } else if (Date.now() - first > 1000) {
        process.stderr.write("Interrupted again: leaving without a clean stop\n");
        process.exit(130);
      }
    };
    process.on("SIGINT", done);
    process.on("SIGTERM", done);
  });
}
