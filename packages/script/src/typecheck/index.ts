export { checkScripts, MAX_TYPE_PROBLEMS } from "./check-program.js";
export { type TypecheckOptions, typecheckScripts } from "./typecheck-scripts.js";
