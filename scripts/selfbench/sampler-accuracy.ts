// `npm run bench:sampler`: how far the out-of-process sampler can be trusted, measured on this machine.
//  1. Cadence of both lanes while the target idles vs while it is blocked for 500 ms: (a) by a
//     JavaScript busy loop, where the inspector still answers; (b) by one native call (a calibrated
//     crypto.pbkdf2Sync), where it cannot: the RSS lane must keep its cadence, the heap lane pauses.
//  2. Peak RSS: sampled peak vs the kernel's VmHWM on a target that touches a known 256 MiB buffer.
//  3. Self CPU: the sampler's own CPU share while it samples at 1 ms and at 10 ms.
//  4. Cost: the target's throughput with vs without sampling, interleaved pairs, median paired ratio,
//     beside an A/A run (without vs without) that gives the noise band.
// Targets are real child processes (scripts/selfbench/targets/probe-target.mjs) with the inspector on
// 127.0.0.1 and a random port. Usage: node dist/scripts/selfbench/sampler-accuracy.js [--pairs N]
//   [--work-ms MS] [--interval-ms MS] [--blocks N] [--self-cpu-ms MS]
//   [--only cadence,native,rss,selfcpu,cost,sources] [--realtime on|off] [--split on|off] [--json FILE]
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import type { IntervalStats } from "../results/schema.js";
import { clockTicks, cpuTimeMs, statCpuTicks } from "../sampler/cpu.js";
import { connectInspector, type InspectorClient, inspectorUrlFromStderr } from "../sampler/inspector.js";
import { intervalsOf } from "../sampler/interval-stats.js";
import { readMemoryUsage } from "../sampler/memory-usage.js";
import { openRssReader, readVmRss } from "../sampler/procfs.js";
import {
  type HeapSample,
  type RssSample,
  type Sampler,
  type SamplerSummary,
  startSampler,
} from "../sampler/sampler.js";
import { median, pairedRatios, quantile, type RatioSummary, summariseRatios } from "../util/stats.js";
import { withTimeout } from "../util/timeout.js";
import { enumFlag, intFlag, listFlag, UsageError } from "../util/usage.js";
import { cpuSteps, psLaneCadence, readCosts } from "./process-sources.js";

/** --realtime: whether the RSS lane's thread asks for real-time scheduling (the sampler's default: on). */
let realtime = true;
/** --split: whether the heap lane reads the RSS split (process.memoryUsage(); the sampler's default: on). */
let split = true;

const TARGET = fileURLToPath(new URL("../../../scripts/selfbench/targets/probe-target.mjs", import.meta.url));
const MiB = 1024 * 1024;

interface Probe {
  child: ChildProcess;
  pid: number;
  inspector: InspectorClient;
  /** Sends one command line to the target. */
  send: (line: string) => void;
  /** Resolves with the next JSON line that has key (equal to value, if given); earlier lines are dropped. */
  waitFor: (key: string, value?: string) => Promise<Record<string, unknown>>;
  /** send(line), then waitFor("done", until). */
  command: (line: string, until: string) => Promise<Record<string, unknown>>;
  stop: () => Promise<void>;
}

const children = new Set<ChildProcess>();
// Targets also exit when their stdin closes, so they end with this process even after SIGKILL.
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

async function startProbe(): Promise<Probe> {
  const child = spawn(process.execPath, ["--inspect=127.0.0.1:0", TARGET], { stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: ((l: Record<string, unknown>) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (l) => {
    const obj = JSON.parse(l) as Record<string, unknown>;
    const w = waiters.shift();
    if (w) w(obj);
    else lines.push(obj);
  });
  const next = () =>
    withTimeout(
      new Promise<Record<string, unknown>>((resolve) => {
        const q = lines.shift();
        if (q) resolve(q);
        else waiters.push(resolve);
      }),
      60_000,
      "probe target line",
    );
  const ready = await next();
  const url = inspectorUrlFromStderr(err);
  if (!url) throw new Error(`probe target printed no inspector url: ${err}`);
  const inspector = await connectInspector(url);
  const waitFor = async (key: string, value?: string) => {
    for (;;) {
      const l = await next();
      if (key in l && (value === undefined || l[key] === value)) return l;
    }
  };
  return {
    child,
    pid: Number(ready.pid),
    inspector,
    send: (line) => child.stdin?.write(`${line}\n`),
    waitFor,
    command: (line, until) => {
      child.stdin?.write(`${line}\n`);
      return waitFor("done", until);
    },
    stop: async () => {
      await inspector.close(1_000);
      const exited = new Promise((r) => child.once("exit", r));
      child.stdin?.end();
      await withTimeout(exited, 5_000, "probe target exit").catch(() => child.kill("SIGKILL"));
    },
  };
}

/** Counts samples of one lane; reach(n) resolves once n were taken. */
function counter<S extends { t: number }>() {
  const times: number[] = [];
  const samples: S[] = [];
  let waiter: { n: number; resolve: () => void } | null = null;
  return {
    times,
    samples,
    on: (s: S) => {
      times.push(s.t);
      samples.push(s);
      if (waiter && times.length >= waiter.n) {
        waiter.resolve();
        waiter = null;
      }
    },
    reach: (n: number) =>
      withTimeout(
        new Promise<void>((resolve) => {
          if (times.length >= n) resolve();
          else waiter = { n, resolve };
        }),
        30_000,
        `${n} samples`,
      ),
  };
}

const fmt = (x: number, d = 2) => x.toFixed(d);
const fmtStats = (s: IntervalStats | null) =>
  s ? `median ${fmt(s.median)} ms, p99 ${fmt(s.p99)} ms, max ${fmt(s.max)} ms` : "n/a";
const stats = (d: number[]): IntervalStats | null =>
  d.length === 0 ? null : { median: median(d), p99: quantile(d, 0.99), max: Math.max(...d) };

/**
 * 1. Cadence of both lanes while the target idles and while it is blocked for blockMs, either by a
 * JavaScript busy loop ("block": the inspector still answers) or by one native call ("native":
 * crypto.pbkdf2Sync, during which the inspector cannot answer).
 */
async function cadence(intervalMs: number, blocks: number, blockMs: number, how: "block" | "native") {
  const p = await startProbe();
  const rss = counter<RssSample>();
  const heap = counter<HeapSample>();
  // t = 0 on both clocks: the target reports its block's bounds on CLOCK_MONOTONIC (process.hrtime),
  // which every process shares, so samples are placed inside the block exactly.
  const hr0 = process.hrtime.bigint();
  const origin = performance.now();
  const tOf = (hrtime: unknown) => Number(BigInt(String(hrtime)) - hr0) / 1e6;
  const s = await startSampler({
    pid: p.pid,
    inspector: p.inspector,
    intervalMs,
    origin,
    realtime,
    split,
    onRss: rss.on,
    onHeap: heap.on,
  });
  const idle: number[] = [];
  const blocked: number[] = [];
  const blockMax: number[] = [];
  const rssPerBlock: number[] = [];
  const heapPerBlock: number[] = [];
  const tookMs: number[] = [];
  let summary: SamplerSummary | null = null;
  try {
    for (let b = 0; b < blocks; b++) {
      // An idle window of ~50 RSS samples, then a blocked window.
      const idleFrom = rss.times.length;
      await rss.reach(idleFrom + 50);
      idle.push(...intervalsOf(rss.times.slice(idleFrom)));
      p.send(`${how} ${blockMs}`);
      await p.waitFor("started", how);
      const done = await p.waitFor("done", how);
      const from = tOf(done.from);
      const to = tOf(done.to);
      if (typeof done.tookMs === "number") tookMs.push(done.tookMs);
      // Intervals that overlap the block: from the last sample before it to the first after it.
      await rss.reach(rss.times.length + 1);
      const i0 = Math.max(0, rss.times.filter((t) => t < from).length - 1);
      const i1 = rss.times.findIndex((t) => t > to);
      const d = intervalsOf(rss.times.slice(i0, i1 + 1));
      blocked.push(...d);
      blockMax.push(d.length > 0 ? Math.max(...d) : Number.NaN);
      rssPerBlock.push(rss.times.filter((t) => t >= from && t <= to).length);
      // The heap lane's stretch without an answer across the block: between the consecutive answers
      // around its middle (the request pending at the end is answered as the call returns).
      await heap.reach(heap.times.length + 1);
      const mid = (from + to) / 2;
      const opening = heap.times.filter((t) => t <= mid).at(-1) ?? 0;
      const closing = heap.times.find((t) => t > mid) ?? Number.NaN;
      heapPerBlock.push(closing - opening);
    }
  } finally {
    summary = await s.stop();
    await p.stop();
  }
  return {
    how,
    intervalMs,
    heapIntervalMs: summary?.heapIntervalMs ?? null,
    rssLaneScheduling: summary?.rssLaneScheduling ?? null,
    blockMs,
    blocks,
    blockTookMs: tookMs,
    idle: stats(idle),
    blocked: stats(blocked),
    blockMaxIntervals: blockMax,
    rssSamplesPerBlock: rssPerBlock,
    /** The stretch without a heap answer across each block (ms). */
    heapStretchPerBlockMs: heapPerBlock,
    /** Heap answers the block cost: those its slots would have given, minus those that came. */
    /** Heap answers the block cost: the slots its stretch spans, less the one answer that ends it. */
    heapSamplesLostPerBlock: heapPerBlock.map((ms) =>
      Math.max(0, Math.floor(ms / (summary?.heapIntervalMs ?? intervalMs)) - 1),
    ),
    rssLane: summary?.interval ?? null,
    heapLane: summary?.heapInterval ?? null,
    heapGapMaxMs: summary?.heapGapMaxMs ?? null,
    rssReadMs: summary?.rssReadMs ?? null,
    heapWaitMs: summary?.heapWaitMs ?? null,
  };
}

/** 2. Sampled peak RSS vs VmHWM around a touched allocation of bytes (Buffer.alloc fills it in native code). */
async function peakRss(intervalMs: number, runs: number, bytes: number) {
  const rows = [];
  for (let r = 0; r < runs; r++) {
    const p = await startProbe();
    const c = counter<RssSample>();
    let s: Sampler | null = null;
    try {
      s = await startSampler({ pid: p.pid, inspector: p.inspector, intervalMs, realtime, split, onRss: c.on });
      await c.reach(5);
      const baseline = median(c.samples.map((x) => x.rss));
      await p.command(`alloc ${bytes}`, "alloc");
      await c.reach(c.times.length + 10);
      const summary = await s.stop();
      const peak = summary.peakRssBytes as number;
      const hwm = summary.hwmRssBytes as number;
      rows.push({
        baselineRssBytes: baseline,
        sampledPeakRssBytes: peak,
        hwmRssBytes: hwm,
        hwmMinusSampledBytes: hwm - peak,
        sampledRiseBytes: peak - baseline,
        interval: summary.interval,
      });
    } finally {
      await s?.stop();
      await p.stop();
    }
  }
  return { bytes, runs: rows };
}

/** CPU time the RSS lane's process has used (ms, all its threads), from /proc/PID/stat; null if gone. */
function laneCpuMs(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    return (statCpuTicks(readFileSync(`/proc/${pid}/stat`, "utf8")) * 1000) / clockTicks();
  } catch {
    return null;
  }
}

/**
 * 3. The sampler's own CPU (this process, all threads) while it samples an idle target for ms, at
 * each interval, and the RSS lane process's part of it.
 */
async function selfCpu(lanes: { intervalMs: number; heapIntervalMs?: number }[], ms: number) {
  const rows = [];
  for (const { intervalMs, heapIntervalMs } of lanes) {
    const p = await startProbe();
    try {
      const c = counter<RssSample>();
      const s = await startSampler({
        pid: p.pid,
        inspector: p.inspector,
        intervalMs,
        heapIntervalMs,
        realtime,
        split,
        onRss: c.on,
      });
      await c.reach(5);
      const cpu0 = process.cpuUsage();
      const lane0 = laneCpuMs(s.rssLaneTid);
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, ms));
      const cpu = process.cpuUsage(cpu0);
      const lane1 = laneCpuMs(s.rssLaneTid);
      const wall = performance.now() - t0;
      const summary = await s.stop();
      if (summary.error) throw new Error(summary.error);
      rows.push({
        intervalMs,
        heapIntervalMs: summary.heapIntervalMs,
        rssLaneScheduling: summary.rssLaneScheduling,
        wallMs: wall,
        /** This process and the RSS lane's process together. */
        cpuShareOfOneCore: ((cpu.user + cpu.system) / 1000 + (lane1 ?? 0) - (lane0 ?? 0)) / wall,
        /** The RSS lane's process alone (10 ms clock ticks); the rest is the heap lane and the main thread. */
        rssLaneCpuShareOfOneCore: lane0 === null || lane1 === null ? null : (lane1 - lane0) / wall,
        rssLane: summary.interval,
        heapLane: summary.heapInterval,
        rssSamples: summary.rssSamples,
        heapSamples: summary.heapSamples,
      });
    } finally {
      await p.stop();
    }
  }
  return rows;
}

// A thread that only sleeps: Atomics.wait on the same deadline schedule as the RSS lane, no reads.
// It counts its own CPU from /proc/thread-self/schedstat, so its start-up is not in the figure.
const SLEEPER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const cpuMs = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
const word = new Int32Array(new SharedArrayBuffer(4));
const { intervalMs, ms } = workerData;
const cpu0 = cpuMs();
const start = performance.now();
let wakeups = 0;
for (let k = 1; start + k * intervalMs <= start + ms; k++) {
  const due = start + k * intervalMs;
  for (let left = due - performance.now(); left > 0; left = due - performance.now()) {
    Atomics.wait(word, 0, 0, left);
    wakeups++;
  }
}
parentPort.postMessage({ cpuMs: cpuMs() - cpu0, wallMs: performance.now() - start, wakeups });
`;

/**
 * 3, continued. The floor under the RSS lane's cost: what a thread that only sleeps and wakes every
 * intervalMs costs on this machine, in the same window (a wake-up's price is the kernel's and the
 * hypervisor's, and it moves with the host's load).
 */
async function sleepFloor(intervalMs: number, ms: number) {
  const worker = new Worker(SLEEPER_SOURCE, { eval: true, execArgv: [], workerData: { intervalMs, ms } });
  const r = await withTimeout(
    new Promise<{ cpuMs: number; wallMs: number; wakeups: number }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    }),
    ms + 30_000,
    "sleeping thread",
  ).finally(() => worker.terminate());
  return { intervalMs, cpuShareOfOneCore: r.cpuMs / r.wallMs, usPerWakeup: (1000 * r.cpuMs) / r.wakeups };
}

/** 3, continued. CPU per operation, back to back (warm): one /proc RSS read, one heap request. */
async function perCallCpu() {
  const p = await startProbe();
  try {
    const reader = openRssReader(p.pid);
    const reads = 20_000;
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < reads; i++) reader.read();
    const cpu = process.cpuUsage(cpu0);
    reader.close();
    const rssReadUs = (cpu.user + cpu.system) / reads;
    const calls = 2_000;
    // Per request, this process's CPU and the target's (its /proc clock ticks over all the calls).
    const perRequest = async (ask: () => Promise<unknown>) => {
      for (let i = 0; i < 200; i++) await ask(); // warm-up
      const target0 = await cpuTimeMs(p.pid);
      const own0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < calls; i++) await ask();
      const own = process.cpuUsage(own0);
      const wallUs = ((performance.now() - t0) * 1000) / calls;
      return {
        ownUs: (own.user + own.system) / calls,
        targetUs: (((await cpuTimeMs(p.pid)) - target0) * 1000) / calls,
        wallUs,
      };
    };
    const heap = await perRequest(() => p.inspector.getHeapUsage());
    const withSplit = await perRequest(() => readMemoryUsage(p.inspector));
    return { rssReadUs, heapRequestUs: heap.ownUs, heapRequest: heap, splitRequest: withSplit };
  } finally {
    await p.stop();
  }
}

/** 4. Throughput cost: work ops with vs without sampling, interleaved with rotation; plus A/A pairs. */
async function cost(intervalMs: number, pairs: number, workMs: number) {
  const p = await startProbe();
  const harnessCpu: number[] = [];
  const run = async (sampled: boolean) => {
    let s: Sampler | null = null;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    if (sampled) s = await startSampler({ pid: p.pid, inspector: p.inspector, intervalMs, realtime, split });
    const r = await p.command(`work ${workMs}`, "work");
    if (s) {
      const summary = await s.stop();
      const cpu = process.cpuUsage(cpu0);
      harnessCpu.push((cpu.user + cpu.system) / 1000 / (performance.now() - t0));
      if (summary.error) throw new Error(summary.error);
    }
    return { ops: Number(r.ops), opsPerCpuMs: Number(r.ops) / Number(r.cpuMs), cpuShare: Number(r.cpuMs) / workMs };
  };
  type Run = Awaited<ReturnType<typeof run>>;
  const withS: Run[] = [];
  const withoutS: Run[] = [];
  const aa1: Run[] = [];
  const aa2: Run[] = [];
  try {
    await run(false); // warm-up: JIT and heap settle before anything counts
    await run(true);
    for (let i = 0; i < pairs; i++) {
      // Rotate which runs first, so drift (thermal, other load) does not favour one side.
      if (i % 2 === 0) {
        withoutS.push(await run(false));
        withS.push(await run(true));
      } else {
        withS.push(await run(true));
        withoutS.push(await run(false));
      }
      aa1.push(await run(false));
      aa2.push(await run(false));
    }
  } finally {
    await p.stop();
  }
  const ops = (runs: Run[]) => runs.map((r) => r.ops);
  const perCpu = (runs: Run[]) => runs.map((r) => r.opsPerCpuMs);
  return {
    intervalMs,
    workMs,
    pairs,
    opsWithout: ops(withoutS),
    opsWith: ops(withS),
    /** Wall-clock throughput: includes CPU the sampler takes from the target on a busy machine. */
    ratio: summariseRatios(pairedRatios(ops(withoutS), ops(withS))),
    aaRatio: summariseRatios(pairedRatios(ops(aa1), ops(aa2))),
    /** Ops per CPU-ms of the target: the per-operation cost of being sampled, independent of CPU share. */
    cpuRatio: summariseRatios(pairedRatios(perCpu(withoutS), perCpu(withS))),
    aaCpuRatio: summariseRatios(pairedRatios(perCpu(aa1), perCpu(aa2))),
    harnessCpuShareWhileSampling: median(harnessCpu),
    /** CPU time the target got per wall ms of work (1 = a whole core). */
    targetCpuShareWithout: median(withoutS.map((r) => r.cpuShare)),
    targetCpuShareWith: median(withS.map((r) => r.cpuShare)),
  };
}

/** The flags, checked; sets the module's realtime and split switches. */
function readFlags(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      pairs: { type: "string", default: "10" },
      "work-ms": { type: "string", default: "1000" },
      "interval-ms": { type: "string", default: "10" },
      blocks: { type: "string", default: "5" },
      json: { type: "string" },
      only: { type: "string", default: "cadence,native,rss,selfcpu,cost,sources" },
      "self-cpu-ms": { type: "string", default: "5000" },
      realtime: { type: "string", default: "on" },
      split: { type: "string", default: "on" },
    },
    strict: true,
  });
  const pairs = intFlag("pairs", values.pairs, 2, 1000);
  const workMs = intFlag("work-ms", values["work-ms"], 100, 60_000);
  const intervalMs = intFlag("interval-ms", values["interval-ms"], 1, 1_000);
  const selfCpuMs = intFlag("self-cpu-ms", values["self-cpu-ms"], 500, 600_000);
  const blocks = intFlag("blocks", values.blocks, 1, 100);
  realtime = enumFlag("realtime", values.realtime, ["on", "off"] as const) === "on";
  split = enumFlag("split", values.split, ["on", "off"] as const) === "on";
  const parts = listFlag("only", values.only);
  for (const part of parts) enumFlag("only", part, ["cadence", "native", "rss", "selfcpu", "cost", "sources"] as const);
  return { pairs, workMs, intervalMs, selfCpuMs, blocks, parts, json: values.json };
}

type Out = NodeJS.WriteStream;

/** Part 1a/1b: the lanes' cadence across blocks of a busy loop or of one native call. */
async function cadencePart(out: Out, how: "block" | "native", intervalMs: number, blocks: number) {
  const cad = await cadence(intervalMs, blocks, 500, how);
  const what = how === "block" ? "a JavaScript busy loop" : "one native call (crypto.pbkdf2Sync)";
  out.write(
    `1${how === "block" ? "a" : "b"}. cadence at ${intervalMs} ms (heap lane ${cad.heapIntervalMs} ms; RSS lane process ${cad.rssLaneScheduling}), ${blocks} blocks of ${cad.blockMs} ms in ${what}\n`,
  );
  if (cad.blockTookMs.length > 0) out.write(`   blocks took ${cad.blockTookMs.map((x) => fmt(x, 0)).join(", ")} ms\n`);
  out.write(`   RSS lane, idle:            ${fmtStats(cad.idle)}\n`);
  out.write(`   RSS lane, across blocks:   ${fmtStats(cad.blocked)}\n`);
  out.write(`   RSS lane, whole run:       ${fmtStats(cad.rssLane)}\n`);
  out.write(`   RSS samples inside each block: ${cad.rssSamplesPerBlock.join(", ")}\n`);
  out.write(
    `   heap lane, stretch without an answer across each block: ${cad.heapStretchPerBlockMs.map((x) => fmt(x, 0)).join(", ")} ms; heap samples lost per block: ${cad.heapSamplesLostPerBlock.join(", ")}\n`,
  );
  out.write(
    `   heap lane, whole run:      ${fmtStats(cad.heapLane)}; longest heap gap ${fmt(cad.heapGapMaxMs ?? Number.NaN, 1)} ms\n`,
  );
  out.write(`   one /proc RSS read:        ${fmtStats(cad.rssReadMs)}\n`);
  out.write(`   heap request to answer:    ${fmtStats(cad.heapWaitMs)}\n\n`);
  return cad;
}

/** Part 2: the sampled peak RSS against the kernel's VmHWM. */
async function peakRssPart(out: Out, intervalMs: number) {
  const rss = await peakRss(intervalMs, 3, 256 * MiB);
  out.write(`2. peak RSS vs VmHWM, ${rss.bytes / MiB} MiB buffer touched (${rss.runs.length} fresh targets)\n`);
  for (const r of rss.runs) {
    out.write(
      `   baseline ${fmt(r.baselineRssBytes / MiB, 1)} MiB, sampled peak ${fmt(r.sampledPeakRssBytes / MiB, 1)} MiB, VmHWM ${fmt(r.hwmRssBytes / MiB, 1)} MiB, VmHWM - sampled ${fmt(r.hwmMinusSampledBytes / 1024, 0)} KiB (${fmt((100 * r.hwmMinusSampledBytes) / r.hwmRssBytes, 3)}%), sampled rise ${fmt(r.sampledRiseBytes / MiB, 1)} MiB\n`,
    );
  }
  out.write("\n");
  return rss;
}

/** Part 3: the sampler's own CPU, the floor of a thread that only sleeps, and the CPU of one call. */
async function selfCpuPart(out: Out, selfCpuMs: number) {
  // At 1 ms with the default heap lane (100 ms there) and with the heap lane at 10 ms, which shows
  // what the heap requests cost; at 10 ms both lanes run at 10 ms.
  const rows = await selfCpu([{ intervalMs: 1 }, { intervalMs: 1, heapIntervalMs: 10 }, { intervalMs: 10 }], selfCpuMs);
  const floor = [await sleepFloor(1, selfCpuMs), await sleepFloor(10, selfCpuMs)];
  const perCall = await perCallCpu();
  out.write(`3. the sampler's own CPU while sampling an idle target for ${selfCpuMs} ms\n`);
  for (const r of rows) {
    out.write(
      `   RSS every ${r.intervalMs} ms (heap every ${r.heapIntervalMs} ms; lane process ${r.rssLaneScheduling}): ${fmt(100 * r.cpuShareOfOneCore, 2)}% of one core (RSS lane process ${r.rssLaneCpuShareOfOneCore === null ? "n/a" : `${fmt(100 * r.rssLaneCpuShareOfOneCore, 2)}%`}); RSS lane ${fmtStats(r.rssLane)}; ${r.rssSamples} RSS, ${r.heapSamples} heap samples\n`,
    );
  }
  for (const f of floor)
    out.write(
      `   floor, a thread that only sleeps and wakes every ${f.intervalMs} ms: ${fmt(100 * f.cpuShareOfOneCore, 2)}% of one core (${fmt(f.usPerWakeup, 1)} µs a wake-up)\n`,
    );
  out.write(
    `   CPU per operation, back to back: one /proc RSS read ${fmt(perCall.rssReadUs, 1)} µs, one heap request ${fmt(perCall.heapRequestUs, 1)} µs\n`,
  );
  for (const [what, r] of [
    ["Runtime.getHeapUsage", perCall.heapRequest],
    ["Runtime.evaluate of process.memoryUsage() (the RSS split)", perCall.splitRequest],
  ] as const)
    out.write(
      `   one ${what}, back to back: harness ${fmt(r.ownUs, 1)} µs CPU, target ${fmt(r.targetUs, 1)} µs CPU, round trip ${fmt(r.wallUs, 1)} µs\n`,
    );
  out.write("\n");
  return { rows, floor, perCall };
}

/** Part 4: the target's throughput with and without sampling, interleaved pairs and an A/A. */
async function costPart(out: Out, intervalMs: number, pairs: number, workMs: number) {
  const cst = await cost(intervalMs, pairs, workMs);
  out.write(
    `4. cost to the target: ops in ${workMs} ms of JSON work, with/without sampling, ${pairs} interleaved pairs\n`,
  );
  const line = (label: string, r: RatioSummary | null) => {
    if (r)
      out.write(
        `   ${label} ${fmt(r.median, 4)} (95% CI ${fmt(r.ci.low, 4)}–${fmt(r.ci.high, 4)}, IQR ${fmt(r.iqr, 4)})\n`,
      );
  };
  line("ops/s, median ratio with/without:      ", cst.ratio);
  line("ops/s, A/A without/without:            ", cst.aaRatio);
  line("ops per CPU-ms, median ratio with/without:", cst.cpuRatio);
  line("ops per CPU-ms, A/A without/without:      ", cst.aaCpuRatio);
  out.write(`   median ops without ${median(cst.opsWithout)}, with ${median(cst.opsWith)}\n`);
  out.write(`   harness CPU while sampling: ${fmt(100 * cst.harnessCpuShareWhileSampling, 1)}% of one core\n`);
  out.write(
    `   target CPU share during work: without ${fmt(100 * cst.targetCpuShareWithout, 1)}%, with ${fmt(100 * cst.targetCpuShareWith, 1)}% of one core\n`,
  );
  return cst;
}

/** Part 5: /proc and pidusage side by side: a read's cost, the ps lane's cadence, CPU time's step. */
async function sourcesPart(out: Out) {
  const p = await startProbe();
  try {
    const costs = await readCosts(p.pid);
    const lane = await psLaneCadence(p.pid, 5_000);
    const steps = await cpuSteps(3_500);
    out.write("5. the target's RSS and CPU through /proc and through pidusage, one read back to back\n");
    for (const c of costs)
      out.write(
        `   ${c.source}: wall ${fmtStats(c.wallMs)}; this process's CPU ${fmt(c.ownCpuUs, 1)} µs (${c.reads} reads)\n`,
      );
    out.write(
      `   ps lane at ${lane.intervalMs} ms for 5 s: ${fmtStats(lane.achieved)}; ${lane.samples} samples, ${lane.missed} slots skipped\n`,
    );
    out.write(
      `   CPU time's smallest step, a spinning process: /proc ${fmt(steps.procMs ?? Number.NaN, 0)} ms, ps ${fmt(steps.psMs ?? Number.NaN, 0)} ms\n\n`,
    );
    return { costs, lane, steps };
  } finally {
    await p.stop();
  }
}

export async function main(argv: string[]): Promise<void> {
  const { pairs, workMs, intervalMs, selfCpuMs, blocks, parts, json } = readFlags(argv);
  const machine = {
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    loadAverage: loadavg(),
    harnessRssBytes: readVmRss(process.pid),
  };
  const out = process.stdout;
  out.write(
    `sampler accuracy — ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, load ${machine.loadAverage.map((x) => fmt(x)).join(" ")}\n\n`,
  );
  const result: Record<string, unknown> = { machine };
  for (const how of ["block", "native"] as const) {
    const part = how === "block" ? "cadence" : "native";
    if (parts.includes(part)) result[part] = await cadencePart(out, how, intervalMs, blocks);
  }
  if (parts.includes("rss")) result.peakRss = await peakRssPart(out, intervalMs);
  if (parts.includes("selfcpu")) result.selfCpu = await selfCpuPart(out, selfCpuMs);
  if (parts.includes("cost")) result.cost = await costPart(out, intervalMs, pairs, workMs);
  if (parts.includes("sources")) result.sources = await sourcesPart(out);
  if (json) {
    writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  }
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`bench:sampler: ${(e as Error).message}\n`);
  process.exitCode = e instanceof UsageError || (e as Error)?.name === "TypeError" ? 2 : 1;
});
