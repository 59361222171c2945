export {
  bundleScripts,
  MAX_SCRIPT_SOURCE_BYTES,
  type ScriptBundle,
  ScriptBundleError,
  type ScriptProblem,
} from "./bundle-scripts.js";
export { collectScriptSources } from "./collect-sources.js";
