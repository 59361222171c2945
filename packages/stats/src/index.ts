export * from "./compare.js";
export * from "./error-counter.js";
export * from "./histogram/latency-histogram.js";
export * from "./histogram/sparse-codec.js";
export * from "./request-aggregate.js";
export * from "./request-recorder.js";
export * from "./stats-aggregate.js";
export * from "./thresholds.js";
