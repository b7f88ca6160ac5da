#!/usr/bin/env node
// A shim: the CLI is compiled to dist/ by `npm install` (the prepare script).
import { main } from "../dist/scripts/cli.js";

main(process.argv.slice(2));
