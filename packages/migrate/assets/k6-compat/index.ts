// k6's script API on Volley's VU, written beside a script by `volley convert k6`. The converted
// script keeps k6's calls (http.get, check, group, sleep, Trend...): each finds the VU running it
// through AsyncLocalStorage, so helper functions need no `vu` parameter. What k6 does synchronously
// is awaited here: the converter made every caller async.
//
// One file per k6 module (k6.ts, http.ts, metrics.ts, data.ts, crypto.ts, ws.ts) over vu.ts.

export { crypto, encoding } from "./crypto.js";
export { SharedArray } from "./data.js";
export { http, k6Defaults } from "./http.js";
export { check, fail, group, sleep } from "./k6.js";
export { Counter, Gauge, Rate, Trend } from "./metrics.js";
export { K6Response } from "./response.js";
export { __ENV, __ITER, __VU, k6Each, k6Iteration } from "./vu.js";
export { ws } from "./ws.js";
