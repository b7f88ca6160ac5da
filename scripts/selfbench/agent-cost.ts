// `npm run bench:agent`: the sampling agent's own cost (`catchup-bench sample`, a process of its own)
// against the bench's in-process sampler, on the same idle target at the same cadences: each one's
// CPU share of one core (all its threads, from /proc/PID/task/*/schedstat, ns resolution) over the
// same window, and the RSS lane's achieved interval (median, p99, max), as docs/sampler.md gives them.
// Interleaved pairs, the starting one rotated each round. Targets: scripts/selfbench/targets/probe-target.mjs
// with the inspector on 127.0.0.1. Usage: node dist/scripts/selfbench/agent-cost.js [--rounds N]
//   [--window-ms MS] [--json FILE]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { IntervalStats } from "../results/schema.js";
import { connectInspector, inspectorUrlFromStderr } from "../sampler/inspector.js";
import { startSampler } from "../sampler/sampler.js";
import { median } from "../util/stats.js";
import { withTimeout } from "../util/timeout.js";
import { intFlag } from "../util/usage.js";

const TARGET = fileURLToPath(new URL("../../../scripts/selfbench/targets/probe-target.mjs", import.meta.url));
const BIN = fileURLToPath(new URL("../../../bin/catchup-bench.js", import.meta.url));

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** CPU time of every thread of pid (ms), from schedstat (ns): no clock-tick rounding over a few seconds. */
function processCpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

async function startProbe(): Promise<{ pid: number; url: string; child: ChildProcess }> {
  const child = track(spawn(process.execPath, ["--inspect=127.0.0.1:0", TARGET], { stdio: ["pipe", "pipe", "pipe"] }));
  let err = "";
  const url = withTimeout(
    new Promise<string>((resolve) => {
      child.stderr?.setEncoding("utf8").on("data", (d: string) => {
        err += d;
        const u = inspectorUrlFromStderr(err);
        if (u) resolve(u);
      });
    }),
    10_000,
    "the probe's inspector banner",
  );
  const ready = withTimeout(
    new Promise<{ pid: number }>((resolve) => {
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (l) => resolve(JSON.parse(l)));
    }),
    10_000,
    "the probe's ready line",
  );
  const [u, r] = await Promise.all([url, ready]);
  return { pid: r.pid, url: u, child };
}

interface Lanes {
  intervalMs: number;
  heapIntervalMs: number;
}

interface Row {
  who: "agent" | "in-process";
  cpuShareOfOneCore: number;
  rssInterval: IntervalStats | null;
  rssSamples: number;
}

/** The bench's sampler in this process, over windowMs once 5 RSS samples arrived. */
async function inProcess(pid: number, url: string, lanes: Lanes, windowMs: number): Promise<Row> {
  const inspector = await connectInspector(url);
  let n = 0;
  let reached: () => void = () => {};
  const five = new Promise<void>((r) => {
    reached = r;
  });
  const s = await startSampler({ pid, inspector, ...lanes, onRss: () => ++n === 5 && reached() });
  await withTimeout(five, 10_000, "5 RSS samples");
  const c0 = processCpuMs(process.pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const cpu = processCpuMs(process.pid) - c0;
  const wall = performance.now() - t0;
  const summary = await s.stop();
  await inspector.close();
  if (summary.error) throw new Error(summary.error);
  return {
    who: "in-process",
    cpuShareOfOneCore: cpu / wall,
    rssInterval: summary.interval,
    rssSamples: summary.rssSamples,
  };
}

/** `catchup-bench sample --pid` as its own process (compiled CLI), over windowMs once it wrote 5 RSS lines. */
async function agent(pid: number, lanes: Lanes, windowMs: number, dir: string): Promise<Row> {
  const file = join(dir, `agent-${Date.now()}.jsonl`);
  const args = [BIN, "sample", "--pid", String(pid), "--out", file];
  args.push("--interval-ms", String(lanes.intervalMs), "--heap-interval-ms", String(lanes.heapIntervalMs));
  const child = track(spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] }));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const rssLines = () => {
    try {
      return readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.includes('"rss"')).length;
    } catch {
      return 0;
    }
  };
  const deadline = performance.now() + 15_000;
  while (rssLines() < 5) {
    if (performance.now() > deadline || child.exitCode !== null) throw new Error("the agent wrote no samples");
    await new Promise((r) => setTimeout(r, 20));
  }
  const agentPid = child.pid as number;
  const c0 = processCpuMs(agentPid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const cpu = processCpuMs(agentPid) - c0;
  const wall = performance.now() - t0;
  child.kill("SIGINT");
  const code = await withTimeout(exited, 15_000, "the agent's exit");
  if (code !== 0) throw new Error(`the agent exited ${code}`);
  const end = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1) as string) as {
    interval: IntervalStats | null;
    rssSamples: number;
  };
  return { who: "agent", cpuShareOfOneCore: cpu / wall, rssInterval: end.interval, rssSamples: end.rssSamples };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      "window-ms": { type: "string", default: "5000" },
      json: { type: "string" },
    },
  });
  const rounds = intFlag("rounds", values.rounds, 1, 50);
  const windowMs = intFlag("window-ms", values["window-ms"], 500, 60_000);
  const configs: Lanes[] = [
    { intervalMs: 10, heapIntervalMs: 10 },
    { intervalMs: 1, heapIntervalMs: 100 },
  ];
  const dir = mkdtempSync(join(tmpdir(), "catchup-agent-cost-"));
  const started = new Date().toISOString();
  const load0 = loadavg()[0] as number;
  const results = [];
  try {
    for (const lanes of configs) {
      const rows: Row[] = [];
      for (let r = 0; r < rounds; r++) {
        // One fresh target per round, both samplers on it; the one going first alternates.
        const probe = await startProbe();
        try {
          const order = r % 2 === 0 ? (["agent", "in-process"] as const) : (["in-process", "agent"] as const);
          for (const who of order) {
            rows.push(
              who === "agent"
                ? await agent(probe.pid, lanes, windowMs, dir)
                : await inProcess(probe.pid, probe.url, lanes, windowMs),
            );
          }
        } finally {
          probe.child.kill("SIGKILL");
        }
      }
      const of = (who: Row["who"]) => rows.filter((x) => x.who === who);
      const line = (who: Row["who"]) => {
        const xs = of(who);
        const shares = xs.map((x) => x.cpuShareOfOneCore * 100);
        const p99 = xs.map((x) => x.rssInterval?.p99 ?? Number.NaN);
        const max = xs.map((x) => x.rssInterval?.max ?? Number.NaN);
        return `  ${who.padEnd(10)} CPU ${shares.map((v) => v.toFixed(2)).join(", ")}% of a core (median ${median(shares).toFixed(2)}); RSS interval median ${xs.map((x) => x.rssInterval?.median.toFixed(2)).join(", ")} p99 ${p99.map((v) => v.toFixed(2)).join(", ")} max ${max.map((v) => v.toFixed(2)).join(", ")} ms`;
      };
      console.log(
        `RSS every ${lanes.intervalMs} ms, heap every ${lanes.heapIntervalMs} ms, ${rounds} rounds of ${windowMs} ms:`,
      );
      console.log(line("agent"));
      console.log(line("in-process"));
      results.push({ lanes, rows });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const load1 = loadavg()[0] as number;
  console.log(`started ${started}; load average ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end`);
  if (values.json)
    writeFileSync(values.json, `${JSON.stringify({ started, load: [load0, load1], results }, null, 2)}\n`);
}

main().catch((e) => {
  console.error(`agent-cost: ${(e as Error).message}`);
  process.exitCode = 1;
});
