// TEST AID: a harness that is SIGKILLed right after the process it starts has been spawned, before it
// can tell that process's pid to anyone (the worst moment for its reaper). It wraps child_process.spawn
// so that the spawn whose arguments hold MARKER waits (synchronously, so nothing else of the harness
// runs) until the new process has written PID_FILE, then kills this process. The process is
// `sh -c SCRIPT MARKER`, started through the target module (scripts/server-process/process.js, compiled).
// Usage: node die-after-spawn.mjs PROCESS_JS MARKER PID_FILE GRACE_MS SCRIPT
import { existsSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { pathToFileURL } from "node:url";

const [processJs, marker, pidFile, graceMs, script] = process.argv.slice(2);
const childProcess = createRequire(import.meta.url)("node:child_process");
const spawn = childProcess.spawn;
const pause = new Int32Array(new SharedArrayBuffer(4));
childProcess.spawn = function spawnThenDie(file, args, options) {
  const child = spawn.call(this, file, args, options);
  if (Array.isArray(args) && args.includes(marker)) {
    const deadline = Date.now() + 30_000;
    while (!existsSync(pidFile)) {
      if (Date.now() > deadline) {
        process.stderr.write(`die-after-spawn: ${pidFile} not written within 30 s\n`);
        process.exit(1);
      }
      Atomics.wait(pause, 0, 0, 5);
    }
    process.kill(process.pid, "SIGKILL");
  }
  return child;
};
// The ES module `node:child_process` (imported by the target module) sees the wrapped spawn too.
syncBuiltinESMExports();
const { spawnProcess } = await import(pathToFileURL(processJs).href);
spawnProcess({ argv: ["sh", "-c", script, marker], graceMs: Number(graceMs) });
process.stderr.write("die-after-spawn: still alive after the spawn\n");
process.exit(1);
