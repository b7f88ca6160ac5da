// Every command that starts a process leaves nothing behind when the harness itself is SIGKILLed:
// fuzz (the bundled server), serve (the bundled server) and a bench run on the k6 driver (k6 itself;
// a fake `k6` on PATH runs the k6 test double, then lingers). bench and clinic have their own files
// (test/bench/lifecycle.test.ts, test/clinic/clinic-orphans.test.ts); all use sigkillAndWatch.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants } from "../../scripts/sampler/procfs.js";
import { startCli, waitUntil } from "../hardening/support/harness.js";
import { DOUBLE_REGISTER, DOUBLE_RUN } from "../scenarios/support/k6-double.js";
import { cmdline, sigkillAndWatch, slowTrialArgs } from "../support/orphans.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-orphans");
  fixture = fixtures.make("f", { projects: 600, scriptBytes: 256, events: 1000, seed: 2 });
});
afterAll(() => fixtures.cleanup());

/** Starts the CLI, waits until its tree holds a process whose command line matches re, SIGKILLs it, checks the tree. */
async function killDuring(label: string, args: string[], running: RegExp, env: Record<string, string> = {}) {
  // TMPDIR: temp files a SIGKILLed harness leaves behind go with our temp dir.
  const run = startCli(args, { TMPDIR: fixtures.dir, ...env });
  try {
    // Killed once the process runs (its reaper was started before it); the reaper is required in the
    // tree too, so the check below proves the reaper, not only the bundled server's stdin lifeline.
    const up = await waitUntil(() => {
      if (run.child.exitCode !== null) return false;
      const tree = descendants(run.child.pid as number).map(cmdline);
      return tree.some((c) => running.test(c)) && tree.some((c) => /server-process\/reaper\.js/.test(c));
    }, 60_000);
    expect(up, `${label}: no process matching ${running} under the CLI; stderr:\n${run.stderr()}`).toBe(true);
    const report = await sigkillAndWatch(run.child, label);
    expect(report.tree.join("\n")).toMatch(/server-process\/reaper\.js/);
    expect(report.left).toEqual([]);
  } finally {
    run.child.kill("SIGKILL");
  }
}

/**
 * A fake `k6` that runs the k6 double, then does not end by itself: as a real k6 can hang (a failed
 * dial blocks its close() forever), so only a reaper ends it once the harness is gone.
 */
function writeLingeringK6(dir: string): void {
  const path = join(dir, "k6");
  writeFileSync(
    path,
    `#!/bin/sh\n# TEST AID: stands in for a k6 that never exits by itself.\n"${process.execPath}" --import "${DOUBLE_REGISTER}" "${DOUBLE_RUN}" "$@"\nexec sleep 600\n`,
  );
  chmodSync(path, 0o755);
}

describe("SIGKILL of the harness leaves no process of ours alive after 2 s", () => {
  it("fuzz", async () => {
    await killDuring("fuzz", ["fuzz", "--seconds", "120"], /server-under-test\/main\.js/);
  }, 90_000);

  it("serve", async () => {
    await killDuring("serve", ["serve", "--db", fixture, "--port", "0"], /server-under-test\/main\.js/);
  }, 90_000);

  it("bench on the k6 driver (k6 itself)", async () => {
    writeLingeringK6(fixtures.dir);
    await killDuring(
      "bench --driver k6",
      ["bench", "--driver", "k6", ...slowTrialArgs(fixture, `${fixtures.dir}/k6-run`)],
      /k6-double\/run\.js/,
      { PATH: `${fixtures.dir}:${process.env.PATH}` },
    );
  }, 90_000);
});
