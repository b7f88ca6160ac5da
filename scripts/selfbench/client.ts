// `npm run bench:client`: (1) the shared client's per-chunk cost beside a raw ws loop, as a ratio
// measured in one run; (2) 1,000 concurrent delayed-ACK sessions from this one process, with the
// driver's event-loop lag p99 (target < 10 ms). Builds its fixtures in a temp dir, runs the bundled
// server from dist/ as a child process, prints a table and one JSON line per part.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { uniformFixture } from "../../fixtures/generate.js";
import { DEFAULT_ACK_DELAY_MS, DEV_TOKEN as TOKEN } from "../../scenarios/lib/protocol.js";
import { measureStormCapacity } from "../storm/capacity.js";
import { idleLoopLag, measureCapacity } from "./client-capacity.js";
import { measureOverhead } from "./client-overhead.js";
import { startBundledServer, startStubServer } from "./client-target.js";

const PAIRS = Number(process.env.CLIENT_BENCH_PAIRS ?? 40);
const CLIENTS = Number(process.env.CLIENT_BENCH_CLIENTS ?? 1000);
const RAMP_MS = Number(process.env.CLIENT_BENCH_RAMP_MS ?? 2000);
const HOLD_MS = Number(process.env.CLIENT_BENCH_HOLD_MS ?? 3000);
/** "overhead", "capacity", "storm" or all of them ("both", the default). */
const PART = process.env.CLIENT_BENCH_PART ?? "both";
/** Storm driver capacity: concurrent sessions per measurement. */
const STORM_SIZES = (process.env.CLIENT_BENCH_STORM ?? "1000,10000").split(",").map(Number);
/** The storm part's target: "stub" (default: measures the driver) or "bundled" (the bundled server). */
const STORM_TARGET = process.env.CLIENT_BENCH_STORM_TARGET ?? "stub";
/** Storm part: connects per second (the ramp is clients / rate). */
const STORM_RATE = Number(process.env.CLIENT_BENCH_STORM_RATE ?? 250);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "catchup-bench-client-"));
  try {
    // Lag and timings depend on what else runs: print the load beside the figures.
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(" ");
    process.stdout.write(
      `machine: ${cpus()[0]?.model ?? "?"} x${cpus().length}, node ${process.version}, load ${load()}\n`,
    );

    if (PART === "both" || PART === "overhead") await overhead(dir, load);
    if (PART === "both" || PART === "capacity") await capacity(dir, load);
    if (PART === "both" || PART === "storm") await stormCapacity(dir, load);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fixture of 64-byte scripts, one per project, seed 1, at dir/name; returns its path. */
function smallScriptsFixture(dir: string, name: string, projects: number, events: number): string {
  const out = join(dir, name);
  uniformFixture({ projects, scriptBytes: 64, events, seed: 1, out });
  return out;
}

async function overhead(dir: string, load: () => string): Promise<void> {
  // (1) Many chunks per session: 3,000 distinct projects replayed in legacy chunks of 512.
  const server1 = await startBundledServer(smallScriptsFixture(dir, "overhead.sqlite", 3000, 3000), [
    "--delivery",
    "legacy",
    "--max-replay-events",
    "3000",
  ]);
  try {
    const o = await measureOverhead(server1.url, TOKEN, server1.fixture.cursorSequence, PAIRS);
    process.stdout.write(
      `\n(1) per-chunk time, legacy resume of 3,000 events (${o.chunksPerSession} chunks/session), ACK delay 0, ${o.pairs} interleaved pairs\n` +
        `    shared client  median ${o.clientPerChunkMs.median.toFixed(3)} ms/chunk (p90 ${o.clientPerChunkMs.p90.toFixed(3)})\n` +
        `    raw ws loop    median ${o.rawPerChunkMs.median.toFixed(3)} ms/chunk (p90 ${o.rawPerChunkMs.p90.toFixed(3)})\n` +
        `    ratio client/raw: median of paired ratios ${o.ratioMedian.toFixed(3)} (p10 ${o.ratioP10.toFixed(3)}, p90 ${o.ratioP90.toFixed(3)})\n` +
        `    client-process CPU per chunk: shared client ${o.clientCpuPerChunkMs.toFixed(3)} ms, raw loop ${o.rawCpuPerChunkMs.toFixed(3)} ms; median paired ratio ${o.cpuRatioMedian.toFixed(3)}\n` +
        `    load average after: ${load()}\n` +
        `${JSON.stringify({ part: "overhead", loadavg: loadavg(), ...o })}\n`,
    );
  } finally {
    await server1.stop();
  }
}

async function capacity(dir: string, load: () => string): Promise<void> {
  // (2) Capacity on a small fixture: 100 projects x 64 B scripts, 1,000 events; legacy resume = 3
  // chunks. Starts are spread over RAMP_MS and each session holds its completion ACK for HOLD_MS,
  // so many sessions are open at once during the hold (maxOpen shows how many).
  const server2 = await startBundledServer(smallScriptsFixture(dir, "capacity.sqlite", 100, 1000), [
    "--delivery",
    "legacy",
  ]);
  try {
    const idle = await idleLoopLag(5_000);
    const c = await measureCapacity(
      server2.url,
      TOKEN,
      server2.fixture.cursorSequence,
      CLIENTS,
      100,
      HOLD_MS,
      RAMP_MS / CLIENTS,
    );
    process.stdout.write(
      `\n(2) ${c.clients} sessions started over ${RAMP_MS} ms, ACK delay ${c.ackDelayMs} ms, completion ACK held ${HOLD_MS} ms, legacy resume (chunks ${c.chunksPerSession.join("/")}), probe on; at most ${c.maxOpen} open at once\n` +
        `    ok ${c.ok}, failed ${c.failed}${c.firstError ? ` (first: ${c.firstError})` : ""}; wall ${c.wallMs.toFixed(0)} ms; driver CPU ${c.driverCpuMs.toFixed(0)} ms (${(c.driverCpuMs / c.clients).toFixed(2)} ms/session)\n` +
        `    completion median ${c.completionMs?.median.toFixed(1)} ms, p99 ${c.completionMs?.p99.toFixed(1)} ms; probe median ${c.probeMs?.median.toFixed(1)} ms\n` +
        `    driver event-loop lag p50 ${c.loopLag.p50.toFixed(2)} ms, p99 ${c.loopLag.p99.toFixed(2)} ms, max ${c.loopLag.max.toFixed(2)} ms (target p99 < 10 ms: ${c.loopLag.p99 < 10 ? "met" : "NOT met"})\n` +
        `    control: the same process idle for 5 s just before: lag p50 ${idle.p50.toFixed(2)} ms, p99 ${idle.p99.toFixed(2)} ms, max ${idle.max.toFixed(2)} ms\n` +
        `    load average after: ${load()}\n` +
        `${JSON.stringify({ part: "capacity", loadavg: loadavg(), idleLoopLag: idle, ...c })}\n`,
    );
  } finally {
    await server2.stop();
  }
}

async function stormCapacity(dir: string, load: () => string): Promise<void> {
  // (3) The storm driver (sessions over worker threads) at 1,000 and 10,000 concurrent sessions,
  // 100 ms ACK delay, starts spread over a ramp (STORM_RATE a second: at 1,000 a second the
  // handshakes alone raise one worker's lag p99 past 10 ms) and every completion ACK held
  // long enough that all sessions are open together (maxOpen shows it). The target is a stub that
  // does almost nothing per session (the bundled server, with CLIENT_BENCH_STORM_TARGET=bundled, on
  // a tiny catch-up: 20 projects x 64 B, 20 events, legacy resume = 2 chunks), so the figures are
  // the driver's. An idle worker thread measures the machine's own lag beside the driver's.
  if (!(STORM_RATE > 0)) throw new Error(`CLIENT_BENCH_STORM_RATE must be a positive number of connects a second`);
  if (STORM_TARGET !== "stub" && STORM_TARGET !== "bundled")
    throw new Error(`CLIENT_BENCH_STORM_TARGET must be stub or bundled, not ${JSON.stringify(STORM_TARGET)}`);
  const server =
    STORM_TARGET === "stub"
      ? await startStubServer()
      : await startBundledServer(smallScriptsFixture(dir, "storm-capacity.sqlite", 20, 20), [
          "--delivery",
          "legacy",
          "--upgrade-timeout-ms",
          "60000",
        ]);
  const after = "fixture" in server ? server.fixture.cursorSequence : 0;
  try {
    for (const clients of STORM_SIZES) {
      const rampMs = Math.max(1000, Math.round((clients / STORM_RATE) * 1000));
      const c = await measureStormCapacity(server.url, TOKEN, after, clients, {
        rampMs,
        holdMs: rampMs + 5000,
        ackDelayMs: DEFAULT_ACK_DELAY_MS,
        timeoutMs: 3 * rampMs + 60_000,
      });
      const ctl = c.controlLoopLag;
      process.stdout.write(
        `\n(3) storm driver against the ${STORM_TARGET} target: ${c.clients} sessions over ${c.workers} worker thread(s), started over ${c.rampMs} ms, ACK delay ${c.ackDelayMs} ms, completion ACK held ${c.holdMs} ms; at most ${c.maxOpen} open at once\n` +
          `    ok ${c.ok}, failed ${c.failed}${c.firstError ? ` (first: ${c.firstError})` : ""}; wall ${c.wallMs.toFixed(0)} ms\n` +
          `    driver event-loop lag (worst worker) p50 ${c.loopLag.p50.toFixed(2)} ms, p99 ${c.loopLag.p99.toFixed(2)} ms, max ${c.loopLag.max.toFixed(2)} ms (target p99 < 10 ms: ${c.loopLag.p99 < 10 ? "met" : "NOT met"})\n` +
          `    control (an idle worker thread, same window): p50 ${ctl ? ctl.p50.toFixed(2) : "?"} ms, p99 ${ctl ? ctl.p99.toFixed(2) : "?"} ms, max ${ctl ? ctl.max.toFixed(2) : "?"} ms\n` +
          `    driver RSS ${(c.rssBeforeBytes / 2 ** 20).toFixed(1)} MiB before, ${(c.rssPeakBytes / 2 ** 20).toFixed(1)} MiB peak: ${(c.rssPerSessionBytes / 1024).toFixed(1)} KiB per session\n` +
          `    load average after: ${load()}\n` +
          `${JSON.stringify({ part: "storm", target: STORM_TARGET, loadavg: loadavg(), ...c })}\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`bench:client: ${(e as Error)?.stack ?? e}\n`);
  process.exitCode = 1;
});
