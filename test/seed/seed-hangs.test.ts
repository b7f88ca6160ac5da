// End to end: a load phase never looks green with nothing measured, and never hangs. Every call of
// the binding has a deadline (--binding-timeout-ms); a process that runs out of work with a call
// still pending exits 3 saying what it waited on; Ctrl-C stops a seed wherever it is, a second one at
// once; whatever a binding leaves open does not keep `bench` alive once its run is written; a server
// that dies mid-seed is reported with its exit and its last stderr lines.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { descendants } from "../../scripts/sampler/procfs.js";
import { startBench, survivorsAfter } from "../bench/bench-child.js";
import { cmdline } from "../support/orphans.js";
import { BINDING, seedScratch, start } from "./support.js";

// Each test runs `bench` once or more, on a shared machine: a seed under load takes seconds.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const s = seedScratch("seed-hangs-");
afterAll(() => s.remove());

/** A binding like notes-binding whose `member` is replaced by `body` (a method's source). */
const variant = (file: string, member: string, body: string) =>
  s.binding(
    file,
    `import notes from ${JSON.stringify(BINDING)};
export default { ...notes, name: ${JSON.stringify(file.replace(/\.mjs$/, ""))}, ${member}: ${body} };
`,
  );

describe("bench --binding: a call that never settles", () => {
  it("a prepare that never settles fails at --binding-timeout-ms, naming the call (not exit 0 with nothing)", async () => {
    const never = variant("never-prepare.mjs", "prepare", "async () => new Promise(() => {})");
    const r = await s.bench(["--binding", never, "--target", `a=${start()}`, "--binding-timeout-ms", "1500"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /catchup-bench: seed: a on small\.sqlite: the never-prepare binding's prepare did not settle within 1500 ms \(--binding-timeout-ms\)/,
    );
    expect(r.results).toBeNull();
  });

  it("with no deadline (0), a process left with nothing to run exits 3 naming what was pending", async () => {
    const never = variant("never-prepare-0.mjs", "prepare", "async () => new Promise(() => {})");
    const r = await s.bench(["--binding", never, "--target", `a=${start()}`, "--binding-timeout-ms", "0"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /catchup-bench: bench ended with nothing left to run while waiting on: the never-prepare-0 binding's prepare \(seed: a on small\.sqlite\); no result/,
    );
    expect(r.results).toBeNull();
  });

  it("a module whose loading never finishes is refused at the deadline (exit 2)", async () => {
    const stuck = s.binding(
      "never-loads.mjs",
      `await new Promise(() => {});\nexport default { name: "x", kinds: ["project"], write() {}, summarize() {} };\n`,
    );
    const r = await s.bench(["--binding", stuck, "--target", `a=${start()}`, "--binding-timeout-ms", "1500"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--binding .*never-loads\.mjs: loading it did not settle within 1500 ms/);
  });

  it("a hung write says it is still waiting, then fails at the deadline naming the event", async () => {
    const stuck = variant(
      "hung-write.mjs",
      "write",
      "async function (event, ctx) { return event.sequence < 15 ? notes.write(event, ctx) : new Promise(() => {}); }",
    );
    const r = await s.bench(["--binding", stuck, "--target", `a=${start()}`, "--binding-timeout-ms", "6000"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /seed: a: still waiting on the hung-write binding's write of event 15 \(project\.created\) after 5 s/,
    );
    expect(r.stderr).toMatch(
      /catchup-bench: seed: a on small\.sqlite: writing event 15 \(project\.created\): the hung-write binding's write did not settle within 6000 ms/,
    );
    expect(r.results).toBeNull();
  });
});

describe("bench --binding: stopping", () => {
  it("Ctrl-C during prepare stops the run at once, and the command prepare was running (exit 130)", async () => {
    const slow = variant(
      "slow-prepare.mjs",
      "prepare",
      `async (ctx) => {
  ctx.log("preparing");
  await ctx.run([process.execPath, "-e", "setTimeout(() => {}, 600000)"]);
  return notes.prepare(ctx);
}`,
    );
    const out = join(s.dir, "stopped-in-prepare");
    const child = startBench([...s.notesArgs(), "--out", out, "--binding", slow, "--target", `a=${start()}`]);
    await child.waitFor(/seed: a: preparing/, 30_000);
    // The command prepare runs is a child of the harness: wait until it is there.
    const deadline = Date.now() + 20_000;
    let tree = descendants(child.pid);
    while (!tree.some((p) => cmdline(p).includes("setTimeout")) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      tree = descendants(child.pid);
    }
    expect(tree.some((p) => cmdline(p).includes("setTimeout"))).toBe(true);
    child.child.kill("SIGINT");
    const { code } = await child.exit(20_000);
    expect(code, child.stderr()).toBe(130);
    expect(child.stderr()).toMatch(/catchup-bench: seed: stopped by SIGINT; nothing was measured/);
    expect(existsSync(join(out, "results.json"))).toBe(false);
    expect(await survivorsAfter(tree, 5000)).toEqual([]);
  });

  /** A binding whose writes hang from event 15 on: a stop must not wait for a reply. */
  const stuck = () =>
    variant(
      "stuck-write.mjs",
      "write",
      `async function (event, ctx) {
  if (event.sequence < 15) return notes.write(event, ctx);
  process.stderr.write("stuck at event " + event.sequence + "\\n");
  return new Promise(() => {});
}`,
    );

  it("Ctrl-C during a write stops its server at once and exits 130, measuring nothing", async () => {
    const out = join(s.dir, "stopped");
    const child = startBench([...s.notesArgs(), "--out", out, "--binding", stuck(), "--target", `a=${start()}`]);
    await child.waitFor(/stuck at event 15/, 30_000);
    const tree = descendants(child.pid);
    expect(tree.some((p) => cmdline(p).includes("notes-server.mjs serve"))).toBe(true);
    child.child.kill("SIGINT");
    const { code } = await child.exit(10_000);
    expect(code, child.stderr()).toBe(130);
    expect(child.stderr()).toMatch(/catchup-bench: seed: stopped by SIGINT; nothing was measured/);
    expect(existsSync(join(out, "results.json"))).toBe(false);
    expect(await survivorsAfter(tree, 2000)).toEqual([]);
  });

  it("a second Ctrl-C exits at once while the first waits for a server that ignores SIGTERM", async () => {
    const out = join(s.dir, "stopped-twice");
    const target = `a=env NOTES_IGNORE_TERM=1 ${start()}`;
    // A stop grace far longer than the test waits: only the second signal can end the run in time.
    const grace = ["--stop-grace-ms", "60000"];
    const child = startBench([...s.notesArgs(), ...grace, "--out", out, "--binding", stuck(), "--target", target]);
    await child.waitFor(/stuck at event 15/, 60_000);
    const tree = descendants(child.pid);
    child.child.kill("SIGINT");
    await child.waitFor(/SIGINT: stopping the seed; a second signal exits at once/, 10_000);
    child.child.kill("SIGINT");
    const { code } = await child.exit(15_000);
    expect(code, child.stderr()).toBe(130);
    expect(await survivorsAfter(tree, 5000)).toEqual([]);
  });

  it("a binding that leaves a timer and a socket open does not keep bench alive after its run", async () => {
    const leaky = s.binding(
      "leaky.mjs",
      `import { createServer } from "node:net";
import notes from ${JSON.stringify(BINDING)};
setInterval(() => {}, 1000);
createServer().listen(0, "127.0.0.1");
export default { ...notes, name: "leaky" };
`,
    );
    const r = await s.bench(["--binding", leaky, "--target", `a=${start()}`], { cases: "snapshot", timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.results?.latency.every((row) => row.ok)).toBe(true);
  });
});

describe("bench --binding: the server dies mid-seed", () => {
  it("says that the server exited, with its exit status and last stderr lines", async () => {
    // Writes are in flight when it dies at its 25th: the line names the first of them to fail.
    const r = await s.bench(["--binding", BINDING, "--target", `b=env NOTES_EXIT_AT=25 ${start()}`]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /catchup-bench: seed: b on small\.sqlite: writing event \d+ \(project\.meta-updated\): the server exited during the seed: target b exited \(exit code 7\); last stderr lines: .*notes-server: exiting at write 25 \(NOTES_EXIT_AT\)/,
    );
    expect(r.results).toBeNull();
  });
});
