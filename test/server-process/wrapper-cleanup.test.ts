// A user's wrapper that starts the server without `exec` and cleans up on exit (a trap) gets its
// cleanup run: on a normal stop, on Ctrl-C of the harness, and when its server crashes mid-trial.
// The harness stops a target with SIGTERM to its group and a grace period, and never SIGKILLs the
// group merely because the top-level `sh` exited. The wrapper logs "start PID" / "clean PID".
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { descendants, isAlive, listeningPorts } from "../../scripts/sampler/procfs.js";
import { cmdline, startBench } from "../bench/bench-child.js";
import { waitUntil } from "../hardening/support/harness.js";
import { killOnNewConnection } from "../support/mid-trial.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

const WRAPPER = "test/server-process/targets/wrapper.sh";
const SERVER = "dist/server-under-test/main.js";
let fixtures: TempFixtures;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-wrapper");
  // > 512 projects: legacy resume-many takes 4 chunks, so a long ACK delay keeps a trial in flight.
  fixture = fixtures.make("f", { projects: 520, scriptBytes: 256, events: 1000, seed: 5 });
});
afterAll(() => fixtures.cleanup());

/** A fresh marker dir and the bench args of a wrapped target (`; exit $?`: the top-level sh stays, no exec). */
function wrapped(name: string, extra: string[]) {
  const dir = join(fixtures.dir, name);
  mkdirSync(dir);
  const target = `w=sh ${WRAPPER} ${dir} node ${SERVER} --db {db} --port {port} --delivery legacy; exit $?`;
  const args = [
    "--target",
    target,
    "--fixture",
    fixture,
    "--no-memory",
    "--no-aa",
    "--stop-grace-ms",
    "10000",
    "--out",
    join(dir, "run"),
    ...extra,
  ];
  const log = () => {
    try {
      return readFileSync(join(dir, "log.txt"), "utf8").trim().split("\n");
    } catch {
      return [];
    }
  };
  const markers = () => readdirSync(dir).filter((f) => f.startsWith("marker-"));
  return { dir, args, log, markers };
}

/** Every wrapper that started cleaned up, and no marker is left. */
function expectCleanedUp(w: ReturnType<typeof wrapped>, starts: number) {
  const log = w.log();
  const started = log.filter((l) => l.startsWith("start ")).map((l) => l.slice(6));
  const cleaned = log.filter((l) => l.startsWith("clean ")).map((l) => l.slice(6));
  expect(started).toHaveLength(starts);
  expect(cleaned.sort()).toEqual([...started].sort());
  expect(w.markers()).toEqual([]);
}

describe("a wrapper target with a cleanup trap and no exec", () => {
  it("gets its cleanup run on a normal stop", async () => {
    const w = wrapped("normal", ["--cases", "snapshot", "--trials", "1"]);
    const bench = startBench(w.args);
    const { code } = await bench.exit(60_000);
    expect(code, bench.stderr()).toBe(0);
    expectCleanedUp(w, 1);
  }, 70_000);

  it("gets its cleanup run on Ctrl-C of the harness", async () => {
    const w = wrapped("sigint", ["--cases", "resume-many", "--trials", "5", "--ack-delay-ms", "1000"]);
    const bench = startBench(w.args);
    await bench.waitFor(/\[1\/5\]/, 60_000);
    const tree = descendants(bench.pid);
    expect(tree.some((p) => cmdline(p).includes(WRAPPER))).toBe(true);
    bench.child.kill("SIGINT");
    const { code } = await bench.exit(30_000);
    expect(code, bench.stderr()).toBe(130);
    expectCleanedUp(w, 1);
    expect(await waitUntil(() => !tree.some(isAlive), 2000)).toBe(true);
  }, 90_000);

  it("gets its cleanup run when its server crashes mid-trial (and the next trial gets a fresh one)", async () => {
    const w = wrapped("crash", ["--cases", "resume-many", "--trials", "4", "--ack-delay-ms", "1000"]);
    const bench = startBench(w.args);
    await bench.waitFor(/\[1\/4\]/, 60_000);
    const server = descendants(bench.pid).find((p) => /^\S*node .*server-under-test\/main\.js/.test(cmdline(p)));
    expect(server).toBeDefined();
    // Mid-trial for sure: a trial's own connection opened after trial 1 ended (1 s ACK delays keep it
    // open for 4 s). Trial 2's may already be open when "[1/4]" is read, so the kill lands in
    // trial 2 or trial 3; killing on "[1/4]" alone could land between trials instead.
    const port = Number(/--port (\d+)/.exec(cmdline(server as number))?.[1]);
    expect(listeningPorts(server as number)).toContain(port);
    expect(await killOnNewConnection(server as number, port, 60_000), bench.stderr()).toBe(true);
    const { code } = await bench.exit(90_000);
    expect(code, bench.stderr()).not.toBeNull();
    const results = JSON.parse(readFileSync(join(w.dir, "run", "results.json"), "utf8")) as Results;
    const failed = results.latency.filter((r) => !r.ok).map((r) => r.trial);
    expect(failed).toHaveLength(1);
    const crashed = failed[0] as number;
    expect([2, 3]).toContain(crashed);
    // Every other trial is ok: the ones after the crash ran on a fresh server.
    expect(results.latency.map((r) => [r.trial, r.ok])).toEqual([1, 2, 3, 4].map((t) => [t, t !== crashed]));
    expect(results.targetCrashes?.map((c) => c.during)).toEqual([`during resume-many w trial ${crashed}`]);
    // Two wrappers: the crashed one cleaned up after its server died, the fresh one on the final stop.
    expectCleanedUp(w, 2);
  }, 150_000);
});
