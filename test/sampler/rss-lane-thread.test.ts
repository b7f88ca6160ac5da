// The RSS lane runs in a process of its own: it keeps reading while this process's main thread is
// blocked, and its process is gone once sampling ends (stop() or the target's death), so a harness
// that stopped its sampler exits by itself. The lane's process is found by its pid (its main
// thread's id) under /proc; nothing here bounds a timing.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { inspectorUrlFromStderr } from "../../scripts/sampler/inspector.js";
import { descendants, isAlive } from "../../scripts/sampler/procfs.js";
import { type RssLane, startRssLane } from "../../scripts/sampler/rss-lane.js";
import { type RssSample, startSampler } from "../../scripts/sampler/sampler.js";
import { inspectedProbe, keepSampler, ROOT, startProbe, stopAll, until, withTimeout } from "./support.js";

afterEach(stopAll);

const SAMPLE_AND_STOP = fileURLToPath(new URL("./targets/sample-and-stop.mjs", import.meta.url));
const LANE_NOT_STOPPED = fileURLToPath(new URL("./targets/lane-not-stopped.mjs", import.meta.url));
/** A lane process that is running (not gone, not a zombie waiting to be reaped). */
const taskExists = (pid: number) => isAlive(pid);
/** This process's children: where lane processes run. */
const tasks = () => descendants(process.pid);
/** RSS readings that must have timestamps inside the block (at 10 ms, a 500 ms block holds far more). */
const MIN_INSIDE = 3;

describe("the RSS lane's own process", () => {
  it("keeps reading while the harness's main thread is blocked", async () => {
    const { t, c } = await inspectedProbe();
    const origin = performance.now();
    const readings: { sample: RssSample; arrived: number }[] = [];
    const s = await startSampler({
      pid: t.pid,
      inspector: c,
      intervalMs: 10,
      origin,
      onRss: (sample) => readings.push({ sample, arrived: performance.now() - origin }),
    });
    keepSampler(s);
    await until(() => readings.length >= 3, 15_000, "readings before the block");

    // Block this thread synchronously: no timer, no message, no inspector answer runs here meanwhile.
    const from = s.now();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    const to = s.now();
    await until(() => readings.some((r) => r.sample.t > to), 15_000, "a reading after the block");

    const inside = readings.filter((r) => r.sample.t > from && r.sample.t < to);
    expect(inside.length).toBeGreaterThanOrEqual(MIN_INSIDE);
    // Taken during the block, handed over after it: they were read elsewhere.
    for (const r of inside) expect(r.arrived).toBeGreaterThanOrEqual(to);
    const summary = await s.stop();
    expect(summary.error).toBeNull();
    expect(summary.rssSamples).toBe(readings.length);
  });

  it("is gone once the sampler is stopped", async () => {
    const { t, c } = await inspectedProbe();
    let readings = 0;
    const s = await startSampler({ pid: t.pid, inspector: c, intervalMs: 5, onRss: () => readings++ });
    keepSampler(s);
    const tid = s.rssLaneTid as number;
    expect(tid).toBeGreaterThan(0);
    expect(tid).not.toBe(process.pid); // a process of its own
    expect(tasks()).toContain(tid);
    expect(taskExists(tid)).toBe(true);
    await until(() => readings >= 3, 15_000, "3 readings");
    const summary = await s.stop();
    // Beside an RSS lane under 10 ms the heap lane defaults to 100 ms (the sampler's CPU budget).
    expect(summary.heapIntervalMs).toBe(100);
    await until(() => !taskExists(tid), 10_000, `lane process ${tid} gone after stop`);
  });

  it("runs real-time exactly when the summary says so, and never when not asked", async () => {
    // The kernel's scheduling policy of the lane's process: field 41 of /proc/PID/stat (1 = SCHED_FIFO).
    const policyOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[38]);
    for (const realtime of [true, false]) {
      const { t, c } = await inspectedProbe();
      const s = await startSampler({ pid: t.pid, inspector: c, intervalMs: 10, realtime });
      keepSampler(s);
      const policy = policyOf(s.rssLaneTid as number);
      const summary = await s.stop();
      expect(summary.error).toBeNull();
      // Asked, it is "fifo" where permitted (CAP_SYS_NICE and `chrt`), "normal" elsewhere; either way
      // the summary must match what the kernel says.
      expect(summary.rssLaneScheduling).toBe(policy === 1 ? "fifo" : "normal");
      expect(policy === 0 || policy === 1).toBe(true);
      if (!realtime) expect(policy).toBe(0);
    }
  });

  it("is gone once the target dies, without a stop()", async () => {
    const { t, c } = await inspectedProbe();
    let readings = 0;
    const s = await startSampler({ pid: t.pid, inspector: c, intervalMs: 5, onRss: () => readings++ });
    keepSampler(s);
    const tid = s.rssLaneTid as number;
    expect(taskExists(tid)).toBe(true);
    await until(() => readings >= 3, 15_000, "3 readings");
    t.kill();
    const summary = await withTimeout(s.ended, 10_000, "sampler end after kill");
    expect(summary.error).toMatch(/^(target pid \d+ exited|inspector of pid \d+ closed) during sampling/);
    await until(() => !taskExists(tid), 10_000, `lane process ${tid} gone after the target died`);
  });

  it("leaves nothing that keeps the harness alive after stop()", async () => {
    const target = await startProbe(["--inspect=127.0.0.1:0"]);
    const url = inspectorUrlFromStderr(target.stderr()) as string;
    const { line, exited } = await runScript(SAMPLE_AND_STOP, [String(target.ready.pid), url]);
    const { stopped } = JSON.parse(line) as { stopped: { tid: number; rssSamples: number; error: string | null } };
    expect(stopped.error).toBeNull();
    expect(stopped.rssSamples).toBeGreaterThanOrEqual(5);
    expect(stopped.tid).toBeGreaterThan(0);
    // Having printed, it returns: the process must end on its own, with nothing left running.
    expect(await withTimeout(exited, 10_000, "sample-and-stop exit after stop()")).toBe(0);
  });

  it("does not keep the process alive when nobody stops it, nor its spare thread", async () => {
    const { line, exited } = await runScript(LANE_NOT_STOPPED, []);
    const { started } = JSON.parse(line) as { started: { tid: number } };
    expect(started.tid).toBeGreaterThan(0); // the lane ran
    expect(await withTimeout(exited, 10_000, "exit with a lane never stopped")).toBe(0);
  });

  it("with spare: true, starts the next lane's process once the lane stops, and the next lane runs on it", async () => {
    const { t } = await inspectedProbe();
    const lanes: RssLane[] = [];
    try {
      const before = new Set(tasks());
      let firstReadings = 0;
      const first = await startRssLane({
        pid: t.pid,
        intervalMs: 10,
        origin: 0,
        onBatch: (b) => {
          firstReadings += b.rss.length;
        },
        spare: true,
      });
      lanes.push(first);
      // The spare: a process started by the call above that is not the lane's own.
      const spareThread = () => tasks().some((tid) => !before.has(tid) && tid !== first.tid);
      // Not while the lane runs: a process starting beside it delays its readings.
      await until(() => firstReadings >= 20, 15_000, "20 readings of the first lane");
      expect(spareThread()).toBe(false);
      await first.stop();
      await until(spareThread, 15_000, "the spare process");
      const ahead = tasks();
      const readings: number[] = [];
      const second = await startRssLane({
        pid: t.pid,
        intervalMs: 10,
        origin: 0,
        onBatch: (b) => readings.push(...b.rss),
      });
      lanes.push(second);
      expect(second.tid).not.toBe(first.tid);
      expect(ahead).toContain(second.tid);
      expect(before.has(second.tid as number)).toBe(false);
      expect(readings.length).toBeGreaterThan(0);
      expect(readings.every((r) => r > 0)).toBe(true);
    } finally {
      for (const lane of lanes) await lane.stop();
    }
  });
});

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) c.kill("SIGKILL");
  children.clear();
});

/** Runs node SCRIPT ...args and resolves with its first stdout line and a promise of its exit code. */
async function runScript(script: string, args: string[]): Promise<{ line: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const line = await withTimeout(
    new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once("line", resolve);
      // 'close' (not 'exit') comes after stdout has been read to its end, so after any line in it.
      child.once("close", (code) => reject(new Error(`${script} exited (${code}) without printing; stderr: ${err}`)));
    }),
    30_000,
    `${script} output`,
  );
  return { line, exited };
}
