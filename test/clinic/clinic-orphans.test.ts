// `catchup-bench clinic` killed with SIGKILL leaves nothing behind: clinic, the server under it and
// the hold command end within 2 s (the reaper of scripts/server-process/ stops clinic's process group). bubbleprof is
// the tool clinic keeps running longest after its parent dies (about 4 s without the reaper).
// Ctrl-C (SIGINT to the CLI) stops the drive early and still leaves the HTML report.
import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants } from "../../scripts/sampler/procfs.js";
import { withTimeout } from "../../scripts/util/timeout.js";
import { cmdline, survivorsAfter } from "../bench/bench-child.js";
import { sigkillAndWatch } from "../support/orphans.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));
let fixtures: TempFixtures;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-clinic-orphans");
  fixture = fixtures.make("f", { projects: 100, scriptBytes: 256, events: 200, seed: 3 });
});
afterAll(() => fixtures.cleanup());

/** Resolves once the child's stderr matches re; rejects on timeout or if it exits first. */
function waitForStderr(child: ChildProcess, re: RegExp, timeoutMs: number): Promise<void> {
  let err = "";
  return new Promise((resolve, reject) => {
    const done = (e: Error | null) => {
      clearTimeout(timer);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      e ? reject(e) : resolve();
    };
    const timer = setTimeout(() => done(new Error(`no ${re} within ${timeoutMs} ms; stderr:\n${err}`)), timeoutMs);
    const onData = (d: string) => {
      err += d;
      if (re.test(err)) done(null);
    };
    const onExit = () => done(new Error(`clinic exited before ${re}; stderr:\n${err}`));
    child.stderr?.setEncoding("utf8").on("data", onData);
    child.once("exit", onExit);
  });
}

describe("clinic killed with SIGKILL", () => {
  it("leaves no clinic, server or hold process alive 2 s later", async () => {
    const out = `${fixtures.dir}/run`;
    const cli = spawn(
      process.execPath,
      [BIN, "clinic", "bubbleprof", "--fixture", fixture, "--duration-s", "60", "--clients", "1", "--out", out],
      // TMPDIR: the runner's private fixture copy, left behind by a SIGKILL, goes with our temp dir.
      { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TMPDIR: fixtures.dir } },
    );
    try {
      await waitForStderr(cli, /driving resume-many/, 60_000);
      const tree = descendants(cli.pid as number);
      // Else the test proves nothing: clinic and the server must be running under the CLI.
      expect(tree.map(cmdline).join("\n")).toMatch(/clinic\/bin\.js bubbleprof[\s\S]*server-under-test\/main\.js/);
      const report = await sigkillAndWatch(cli, "clinic bubbleprof");
      expect(report.left).toEqual([]);
    } finally {
      cli.kill("SIGKILL");
    }
  }, 90_000);
});

describe("clinic stopped with Ctrl-C", () => {
  it("writes the HTML report, prints its path, exits 0 and leaves nothing running", async () => {
    const out = `${fixtures.dir}/sigint`;
    const cli = spawn(
      process.execPath,
      [BIN, "clinic", "doctor", "--fixture", fixture, "--duration-s", "600", "--clients", "1", "--out", out],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TMPDIR: fixtures.dir } },
    );
    let stdout = "";
    cli.stdout?.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    // "close" comes after stdout is drained (the HTML path is its last line).
    const exited = new Promise<number | null>((resolve) => cli.once("close", (code) => resolve(code)));
    try {
      await waitForStderr(cli, /driving resume-many/, 60_000);
      const tree = descendants(cli.pid as number);
      cli.kill("SIGINT");
      // Without the Ctrl-C the drive would last 600 s.
      const code = await withTimeout(exited, 120_000, "the CLI's exit after SIGINT");
      expect(code).toBe(0);
      const html = `${out}/clinic/doctor.html`;
      expect(stdout.trim()).toBe(html);
      expect(statSync(html).size).toBeGreaterThan(50_000);
      const left = await survivorsAfter(tree, 2000);
      expect(left.map((p) => `${p} ${cmdline(p)}`)).toEqual([]);
    } finally {
      cli.kill("SIGKILL");
    }
  }, 150_000);
});
