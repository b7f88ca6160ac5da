#!/usr/bin/env node
// A shim: the CLI is compiled to dist/ by `npm install` (the prepare script).
import { runCli } from "../dist/scripts/cli.js";

runCli(process.argv.slice(2));
