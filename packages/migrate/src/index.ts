export * from "./importers.js";
export { convertK6, type K6Conversion } from "./k6/k6-convert.js";
export { COMPAT_DIR } from "./k6/k6-script.js";
