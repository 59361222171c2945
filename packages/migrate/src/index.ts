export { importCurl } from "./curl/curl-import.js";
export { type HarOptions, importHar } from "./har/har-import.js";
export {
  ImportError,
  type Imported,
  type ImportSource,
  MAX_IMPORT_BYTES,
  MAX_IMPORTED_REQUESTS,
  toYaml,
} from "./imported.js";
export { convertK6, type K6Conversion } from "./k6/k6-convert.js";
export { importOpenapi } from "./openapi/openapi-import.js";
export { importPostman } from "./postman/postman-import.js";
