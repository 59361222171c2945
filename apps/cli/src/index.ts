export { ApiClient } from "./api-client.js";
export { HELP, main } from "./main.js";
export { RunFollower, withSecond } from "./run-follower.js";
