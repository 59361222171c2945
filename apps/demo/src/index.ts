export { type DemoOptions, type RunningDemo, startDemo } from "./demo-server.js";
export { GREETER_PROTOS, type GreeterServer, startGreeter } from "./greeter.js";
