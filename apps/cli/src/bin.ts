#!/usr/bin/env node
import { main } from "./main.js";

const code = await main(process.argv.slice(2));
// Let pending output flush, then leave even if a library keeps a handle open.
process.exitCode = code;
setTimeout(() => process.exit(code), 100).unref();
