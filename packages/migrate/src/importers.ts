// The importers alone (no k6 converter and its parser): what the dashboard loads.
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
export { importOpenapi } from "./openapi/openapi-import.js";
export { importPostman } from "./postman/postman-import.js";
