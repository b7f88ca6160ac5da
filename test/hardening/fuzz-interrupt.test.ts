// Ctrl-C on `fuzz`: one line saying what it does, the server stopped, its temp folder removed, exit
// 130. The temp folders of fuzz runs killed outright (SIGKILL: no chance to clean up) are swept by
// the next run.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { processesWith, startCli, waitUntil } from "./support/harness.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-fuzzint-"));
afterAll(() => {
  for (const p of processesWith(dir)) process.kill(p.pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("fuzz and Ctrl-C", () => {
  it("prints a line, stops the server, removes its temp folder, exits 130; sweeps a dead run's folder", async () => {
    const stale = join(dir, "catchup-fuzz-2147483600-abcdef");
    mkdirSync(stale);
    const run = startCli(["fuzz", "--seconds", "120"], { TMPDIR: dir });
    // The fixture copy and the server's db live in the run's temp folder under TMPDIR.
    const started = await waitUntil(() => /fuzz: server pid \d+/.test(run.stderr()), 60_000);
    expect(started, run.stderr()).toBe(true);
    const mine = readdirSync(dir).filter((n) => n.startsWith("catchup-fuzz-"));
    expect(mine, "only this run's folder: the dead run's was swept").toHaveLength(1);
    expect(existsSync(stale)).toBe(false);
    expect(processesWith(dir).length).toBeGreaterThan(0); // the server, serving a db in that folder
    run.child.kill("SIGINT");
    const exit = await run.exited;
    await run.closed;
    expect(exit.code, run.stderr()).toBe(EXIT.sigint);
    expect(run.stderr()).toMatch(/fuzz: SIGINT: stopping the server and removing .*catchup-fuzz-\d+-/);
    expect(readdirSync(dir).filter((n) => n.startsWith("catchup-fuzz-"))).toEqual([]);
    expect(await waitUntil(() => processesWith(dir).length === 0, 5_000), JSON.stringify(processesWith(dir))).toBe(
      true,
    );
  }, 120_000);
});
