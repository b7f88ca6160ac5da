// The reaper is started before the process it guards: a harness SIGKILLed right after its target was
// spawned (before the target's pid could reach anyone) leaves nothing running. The target carries the
// reaper's token in its environment, and so does the child it forks, which is found that way too.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive } from "../../scripts/sampler/procfs.js";
import { waitUntil } from "../hardening/support/harness.js";
import { runNode } from "../support/child.js";

const PROCESS_JS = fileURLToPath(new URL("../../dist/scripts/server-process/process.js", import.meta.url));
const DIE_AFTER_SPAWN = fileURLToPath(new URL("./targets/die-after-spawn.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "catchup-reaper-first-"));
const started: number[] = [];

afterAll(() => {
  for (const p of started.filter(isAlive)) process.kill(p, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("a harness SIGKILLed right after spawning its target", () => {
  it("leaves no target running: the reaper was there first and finds it by its environment", async () => {
    const pidFile = join(dir, "target.pid");
    const marker = `catchup-reaper-first-${process.pid}`;
    // Records its pid and its child's, then waits; the harness dies once the file is there.
    const script = `sleep 600 & echo "$$ $!" > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; wait`;
    const harness = await runNode([DIE_AFTER_SPAWN, PROCESS_JS, marker, pidFile, "1000", script], {
      timeoutMs: 60_000,
    });
    // Else the test proves nothing: the harness died by its own SIGKILL right after the spawn.
    expect(harness.signal, harness.stderr).toBe("SIGKILL");
    const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    expect(pids).toHaveLength(2);
    started.push(...pids);
    const gone = await waitUntil(() => !pids.some(isAlive), 30_000);
    expect(gone, `still running: ${pids.filter(isAlive).join(", ")}`).toBe(true);
  }, 100_000);
});
