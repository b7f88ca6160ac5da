// The reaper: a tiny watchdog beside each foreign target. It holds a pipe to the harness on stdin;
// when that pipe closes (the harness ended, even by SIGKILL) it kills the target's process group:
// SIGTERM, then SIGKILL 1 s later, so no target outlives the harness by more than about 2 s.
// SIGTERM from the harness dismisses it (the target was stopped normally).
// Usage: node reaper.js PGID
const pgid = Number(process.argv[2]);
if (!Number.isInteger(pgid) || pgid <= 1) {
  process.stderr.write(`reaper: PGID must be an integer > 1 (got ${JSON.stringify(process.argv[2])})\n`);
  process.exit(2);
}

function kill(signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => undefined); // a terminal's Ctrl-C is the harness's to handle
process.stdin.on("error", () => undefined);
process.stdin.on("close", () => {
  if (!kill("SIGTERM")) process.exit(0);
  setTimeout(() => {
    kill("SIGKILL");
    process.exit(0);
  }, 1000);
});
process.stdin.resume();
