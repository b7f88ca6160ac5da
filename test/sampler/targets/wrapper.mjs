// A node wrapper for discovery tests (like npm/npx): spawns `node ...argv` with inherited stdio and
// stays its parent. Inherits NODE_OPTIONS, so with --inspect both processes open an inspector.
import { spawn } from "node:child_process";

const child = spawn(process.execPath, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
