// `catchup-bench sample`, the sampling agent, against the real bundled server on loopback: one
// server with an inspector (heap lane, SIGUSR2 GC mark, --gc-at-end, exit 3 when the server exits)
// and one without (RSS only, said in the output; SIGKILL loses at most the last 50 ms, leaves no
// process); bad --pid/--port give one line and exit 2, and write nothing.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants, isAlive, procStats } from "../../scripts/sampler/procfs.js";
import { median } from "../../scripts/util/stats.js";
import { BIN, runCli } from "../fixtures/cli.js";
import { until } from "../sampler/support.js";
import { smallFixture } from "../scenarios/support/fixture.js";
import { type RunningServer, startServer } from "../support/server.js";
import { killAgents, readSamples, startAgentChild } from "./support.js";

const KERNEL_THREAD = procStats().find((p) => {
  try {
    return readFileSync(`/proc/${p.pid}/statm`, "utf8").startsWith("0 0 ");
  } catch {
    return false;
  }
})?.pid;
const fixture = smallFixture();
let inspected: RunningServer;
let plain: RunningServer;
let work: string;

const portOf = (s: RunningServer) => Number(new URL(s.url).port);
const rssLines = (file: string) => readSamples(file).filter((l) => typeof l.rss === "number");

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "catchup-agent-"));
  [inspected, plain] = await Promise.all([
    startServer(fixture.path, [], 20_000, ["--inspect=127.0.0.1:0"]),
    startServer(fixture.path, []),
  ]);
});

afterAll(async () => {
  killAgents();
  await Promise.all([inspected?.stop(), plain?.stop()]);
  fixture.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("catchup-bench sample", () => {
  it("samples heap and RSS by --port, stamps wall-clock time, marks a GC on SIGUSR2, stops on SIGTERM", async () => {
    const file = join(work, "inspected", "samples.jsonl");
    const agent = startAgentChild(["--port", String(portOf(inspected)), "--out", file, "--proc-interval-ms", "100"]);
    await agent.waitFor(/^sampling pid \d+ .*heap every 10 ms through ws:\/\/127\.0\.0\.1:/m);
    await until(() => existsSync(file) && rssLines(file).length >= 20, 15_000, "20 RSS lines");
    agent.child.kill("SIGUSR2");
    await agent.waitFor(/^SIGUSR2: marked; post-GC heap [\d.]+ MiB$/m);
    agent.child.kill("SIGTERM");
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    expect(agent.stdout()).toMatch(/^stopped \(SIGTERM\): \d+ RSS and \d+ heap samples .*peak RSS [\d.]+ MiB; VmHWM/m);

    const lines = readSamples(file);
    // Every line carries both clocks; t is monotonic and wall - t is one offset (no drift in a second):
    // nine lines in ten within 2.5 ms of the median offset (the two clocks are read one after the
    // other, and a loaded machine may run something else in between), and none 50 ms off.
    expect(lines.every((l) => typeof l.t === "number" && typeof l.wall === "number")).toBe(true);
    const ts = lines.map((l) => l.t);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    const offsets = lines.map((l) => l.wall - l.t);
    const mid = median(offsets);
    expect(offsets.filter((o) => Math.abs(o - mid) < 2.5).length).toBeGreaterThanOrEqual(0.9 * offsets.length);
    expect(Math.max(...offsets.map((o) => Math.abs(o - mid)))).toBeLessThan(50);
    const header = lines.find((l) => l.phase === "agent");
    expect(header).toMatchObject({ pid: inspected.pid, port: portOf(inspected), heap: true, hwmReset: true });
    expect(lines.filter((l) => typeof l.heapUsed === "number" && "heapTotal" in l).length).toBeGreaterThan(5);
    const proc = lines.filter((l) => "hwm" in l);
    expect(proc.length).toBeGreaterThanOrEqual(2);
    expect(proc.every((l) => typeof l.hwm === "number" && typeof l.cpuMs === "number")).toBe(true);
    const mark = lines.find((l) => l.phase === "mark");
    const gc = lines.find((l) => l.phase === "gc");
    expect(mark).toMatchObject({ reason: "SIGUSR2" });
    expect(gc).toMatchObject({ reason: "SIGUSR2" });
    expect(gc?.heapUsed).toBeGreaterThan(0);
    const end = lines.at(-1);
    expect(end).toMatchObject({ phase: "end", reason: "SIGTERM", hwmReset: true });
    // The end line's peak is the highest RSS line: the file holds every sample the summary counted.
    expect(end?.peakRssBytes).toBe(Math.max(...rssLines(file).map((l) => l.rss as number)));
    expect(end?.rssSamples).toBe(rssLines(file).length);
  });

  it("RSS only without an inspector (said in the output); SIGKILL loses only the last writes' worth and leaves no process", async () => {
    const file = join(work, "plain.jsonl");
    const agent = startAgentChild(["--pid", String(plain.pid), "--out", file]);
    await agent.waitFor(/^sampling pid \d+: RSS only, every 10 ms: pid \d+ has no inspector/m);
    await until(() => existsSync(file) && rssLines(file).length >= 30, 15_000, "30 RSS lines");
    // The kill comes 100 ms after a write was seen to land, five of the agent's 20 ms writes later:
    // the file must then hold samples taken since. Had the agent written only now and then, they
    // would be lost. No absolute bound: a loaded machine makes the kill as late as the writes.
    const size = statSync(file).size;
    await until(() => statSync(file).size > size, 5_000, "the file to grow");
    const grown = Date.now();
    await new Promise((r) => setTimeout(r, 100));
    // Its one child: the RSS lane's process, which ends when the agent does (its stdin closes).
    const lanes = descendants(agent.child.pid as number);
    expect(lanes).toHaveLength(1);
    agent.child.kill("SIGKILL");
    expect((await agent.exited).signal).toBe("SIGKILL");
    await until(() => !lanes.some(isAlive), 10_000, "the RSS lane's process gone after the agent's SIGKILL");
    const lines = readSamples(file); // every line whole: no torn write
    const lastRss = rssLines(file).at(-1);
    expect(lines.some((l) => l.heapUsed !== undefined)).toBe(false);
    expect(lines.find((l) => l.phase === "agent")).toMatchObject({ heap: false, inspector: null });
    expect(lastRss?.wall ?? 0).toBeGreaterThan(grown + 10);
    expect(isAlive(agent.child.pid as number)).toBe(false);
    expect(isAlive(plain.pid)).toBe(true); // the agent never touches its target's life
  });

  it("exits 3 when the server exits, keeping every sample and an end line naming why", async () => {
    const file = join(work, "exit.jsonl");
    const agent = startAgentChild(["--pid", String(inspected.pid), "--out", file, "--gc-at-end"]);
    await agent.waitFor(/^sampling pid/m);
    await until(() => existsSync(file) && rssLines(file).length >= 10, 15_000, "10 RSS lines");
    await inspected.stop("SIGKILL");
    expect((await agent.exited).code).toBe(3);
    const end = readSamples(file).at(-1);
    expect(end?.phase).toBe("end");
    expect(String(end?.reason)).toMatch(/exited|closed/);
    expect(end?.rssSamples).toBe(rssLines(file).length);
  });

  it("honours a signal during start-up: SIGUSR2 is no death, SIGINT ends it at once with one line, no file", async () => {
    // An --inspect-port that accepts and never answers holds the agent in its start-up; the
    // connection is the event that says it is there.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
    });
    const connected = new Promise<void>((resolve) => silent.once("connection", () => resolve()));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const file = join(work, "early.jsonl");
      const agent = startAgentChild(["--pid", String(plain.pid), "--inspect-port", String(port), "--out", file]);
      await connected;
      agent.child.kill("SIGUSR2");
      await agent.waitFor(/^SIGUSR2: not sampling yet/m);
      agent.child.kill("SIGINT");
      expect(await agent.exited).toEqual({ code: 130, signal: null });
      expect(agent.stderr().trim()).toBe("catchup-bench: SIGINT before sampling began; nothing written");
      expect(existsSync(file)).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("refuses its own pid by name (exec keeps the shell's pid, so $$ is the agent's)", () => {
    const file = join(work, "self.jsonl");
    const r = spawnSync("sh", ["-c", `exec "${process.execPath}" "${BIN}" sample --pid $$ --out "${file}"`], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^catchup-bench: --pid \d+ is this agent's own process: give the server's\n$/);
    expect(existsSync(file)).toBe(false);
  });

  it("refuses a bad --pid or --port with one line, exit 2, no file", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["--pid", "4000000"], /^catchup-bench: --pid 4000000: no such process on this host$/],
      [["--port", "1"], /^catchup-bench: --port 1: no process this user can read listens on TCP port 1/],
      [["--pid", "1", "--port", "1"], /give exactly one of --pid PID or --port PORT/],
      [["--pid", "0"], /--pid must be an integer from 1 to 4194304/],
      // A kernel thread exists and has no memory (its statm reads zeros), where /proc shows any.
      ...(KERNEL_THREAD === undefined
        ? []
        : [[["--pid", String(KERNEL_THREAD)], /: has no memory to sample \(a kernel thread/] as [string[], RegExp]]),
      [[], /give exactly one of --pid PID or --port PORT/],
    ];
    // In parallel: each is a CLI start of its own.
    await Promise.all(
      cases.map(async ([args, message], i) => {
        const file = join(work, `refused-${i}.jsonl`);
        const run = await runCli(["sample", ...args, "--out", file]);
        expect(run.code, args.join(" ")).toBe(2);
        expect(run.stderr.trim().split("\n")).toHaveLength(1);
        expect(run.stderr.trim()).toMatch(message);
        expect(existsSync(file)).toBe(false);
      }),
    );
  });
});
