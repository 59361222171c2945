export { HELP, main } from "./main.js";
