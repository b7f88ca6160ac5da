// `npm run bench:power`: the harness measures its own power. It runs `catchup-bench bench` (the
// compiled CLI, as a user would) R times per setting at the default flags with --ceiling 1.03,
// against the bundled server preloaded with a knob (targets/power-knobs.mjs) that injects a known
// regression into one named cell: a delay of X ms in the latency case resume-many, or Y MiB held
// during the catch-up of the memory cell 1 KiB × 1 resume; the null injects nothing. Baseline and
// candidate are the same server (--delivery, default legacy: the default run's baseline), so any FAIL
// outside the named cell is a false alarm and a FAIL in it a detection. Settings are interleaved (null, sizes…, then again), so drift
// of the machine falls on every setting alike. Prints per metric the false-alarm and detection
// rates with their wall time; writes power.md and power.json into the output directory.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { fixtureCacheDir } from "../../fixtures/options.js";
import { runDirName } from "../bench/run/machine.js";
import type { Results } from "../results/schema.js";
import type { CellVerdict } from "../results/verdict-record.js";
import { LOOK_LEVEL, LOOKS } from "../verdicts/sequential.js";
import { simulate, simulationTable } from "./power-sim.js";
import {
  baselineFigures,
  type Kind,
  type Observation,
  observationsOf,
  parseSizes,
  powerRows,
  powerTable,
  resolveSize,
  type Setting,
  type SizeSpec,
  settingOf,
} from "./power-table.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
// This file runs from dist/scripts/selfbench/; the knob is plain JS in the source tree.
const ROOT = here("../../../");
const BIN = join(ROOT, "bin/catchup-bench.js");
const SERVER_MAIN = join(ROOT, "dist/server-under-test/main.js");
const KNOBS = join(ROOT, "scripts/selfbench/targets/power-knobs.mjs");
/**
 * One bench run that has not finished by then is stopped with SIGTERM (it keeps and judges what
 * finished; its missing pairs then make those cells "no verdict"), and killed 60 s later.
 */
const RUN_TIMEOUT_MS = 30 * 60_000;

const DELIVERIES = ["legacy", "batched"] as const;
type Delivery = (typeof DELIVERIES)[number];

const USAGE = `usage: npm run bench:power -- [--runs R] [--delays 5%,10%] [--holds 5%] [--cases resume-many,snapshot] [--delivery legacy|batched] [--out DIR] [--sims N] [--sim-noise 2%,4%] [--simulate-only]
  first a simulation of the sequential rule (N cells per setting, --sims 0 skips it), then the bench runs
  sizes: a number (ms for --delays, MiB for --holds) or a percent of the null runs' baseline median
  (resume-many completion, 1 KiB x 1 resume peak heap); --delays "" or --holds "" skips that part`;

interface Options {
  runs: number;
  delays: SizeSpec[];
  holds: SizeSpec[];
  cases: string;
  delivery: Delivery;
  out: string;
  /** Simulated cells per setting of the simulation step; 0 skips it. */
  sims: number;
  simNoise: number[];
  /** Only the simulation: no bench runs. */
  simulateOnly: boolean;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string", default: "2" },
      delays: { type: "string", default: "5%,10%" },
      // One hold size (2 runs of each setting then fit 15 minutes on 2 cores): 5%, which the sampled
      // peak shows whole, where 10% (one block of 2.84 MiB) set off an earlier GC and lowered it.
      holds: { type: "string", default: "5%" },
      cases: { type: "string", default: "resume-many,snapshot" },
      delivery: { type: "string", default: "legacy" },
      out: { type: "string" },
      sims: { type: "string", default: "400" },
      "sim-noise": { type: "string", default: "2%,4%" },
      "simulate-only": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const sims = Number(values.sims);
  if (!Number.isInteger(sims) || sims < 0 || sims > 100_000)
    throw new Error(`--sims: an integer 0–100000, got ${values.sims}`);
  const simNoise = values["sim-noise"].split(",").map((t) => Number(t.replace(/%$/, "")) / 100);
  if (simNoise.some((x) => !(x > 0 && x < 1)))
    throw new Error(`--sim-noise: percents between 0 and 100, e.g. 2%,4%, got ${values["sim-noise"]}`);
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000)
    throw new Error(`--runs: an integer 1–1000, got ${values.runs}`);
  if (!values.cases.split(",").includes("resume-many"))
    throw new Error("--cases must include resume-many (the named case)");
  const delivery = values.delivery as Delivery;
  if (!DELIVERIES.includes(delivery))
    throw new Error(`--delivery: one of ${DELIVERIES.join(", ")}, got ${values.delivery}`);
  return {
    runs,
    delivery,
    delays: parseSizes("delays", values.delays),
    holds: parseSizes("holds", values.holds),
    cases: values.cases,
    sims,
    simNoise,
    simulateOnly: values["simulate-only"],
    out: resolve(values.out ?? join(ROOT, "reports", `power-${runDirName()}`)),
  };
}

/** The knobbed server as a foreign target's command; knob flags only for the candidate. */
function targetCommand(delivery: Delivery, knobArgs: string[]): string {
  const q = (s: string) => (/^[\w./:=,@+-]+$/.test(s) ? s : JSON.stringify(s));
  return [
    "node",
    `--import=${q(KNOBS)}`,
    q(SERVER_MAIN),
    `--db {db} --port {port} --delivery ${delivery} --exit-with-parent`,
    ...knobArgs,
  ].join(" ");
}

function benchArgs(
  kind: Kind,
  size: number | null,
  cursor: number,
  opts: Pick<Options, "cases" | "delivery">,
  out: string,
): string[] {
  const knob =
    kind === "delay"
      ? ["--power-after", String(cursor), "--power-delay-ms", String(size)]
      : kind === "hold"
        ? ["--power-after", String(cursor), "--power-hold-mib", String(size)]
        : [];
  const latency = ["--cases", opts.cases];
  const memory = ["--script-bytes", "1024", "--clients", "1"];
  const parts =
    kind === "delay"
      ? [...latency, "--no-memory", "--guard", "completionMs"]
      : kind === "hold"
        ? [...memory, "--no-latency", "--guard", "peakHeapBytes,peakRssBytes"]
        : [...latency, ...memory, "--guard", "completionMs,peakHeapBytes,peakRssBytes"];
  return [
    "bench",
    "--ceiling",
    "1.03",
    ...parts,
    "--target",
    `baseline=${targetCommand(opts.delivery, [])}`,
    "--target",
    `candidate=${targetCommand(opts.delivery, knob)}`,
    "--out",
    out,
  ];
}

let current: ReturnType<typeof spawn> | null = null;
let stopping = false;

/** Runs one bench to its exit; its stdout and stderr go to log. */
function runBench(args: string[], log: string): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    current = child;
    let text = "";
    child.stdout.on("data", (d) => {
      text += d;
    });
    child.stderr.on("data", (d) => {
      text += d;
    });
    let kill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      kill = setTimeout(() => child.kill("SIGKILL"), 60_000);
    }, RUN_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      clearTimeout(kill);
      current = null;
      writeFileSync(log, text);
      resolveRun({ code, ms: performance.now() - started });
    });
  });
}

function readResults(dir: string): Results | null {
  try {
    return JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as Results;
  } catch {
    return null;
  }
}

interface RunState {
  opts: Options;
  machine: string;
  loadBefore: string[];
  observations: Observation[];
  settings: Setting[];
  wall: Map<string, number>;
  disturbed: { rounds: number; of: number };
  runs: { setting: string; run: number; code: number | null; seconds: number; dir: string }[];
  started: number;
  total: number;
}

/** Writes power.md and power.json (atomically, after every run, so a run cut short still leaves its table). */
function summaryText(st: RunState & { basis: ReturnType<typeof baselineFigures> | null }, partial: boolean): string {
  const { opts, machine, loadBefore, observations, settings, wall, disturbed, runs, started, total, basis } = st;

  const seconds = (performance.now() - started) / 1000;
  const rows = powerRows(observations, settings);
  const loadAfter = loadavg().map((l) => l.toFixed(2));
  const lines = [
    `# bench:power: false alarms and detection at --ceiling 1.03 (default flags; ${opts.runs} run${opts.runs === 1 ? "" : "s"} per setting)`,
    "",
    `Machine: ${machine}. Load average (1, 5, 15 min) ${loadBefore.join(", ")} before, ${loadAfter.join(", ")} ${partial ? "now" : "after"}; rounds disturbed (others' CPU + steal ≥ 0.25 cores, read per round): ${disturbed.rounds} of ${disturbed.of}.`,
    `Target: the bundled server with --delivery ${opts.delivery} on both sides, the knob in the candidate. Baseline medians of the first null run: ${basis?.completionMs?.toFixed(1) ?? "n/a"} ms completion in resume-many, ${basis?.peakHeapMib?.toFixed(1) ?? "n/a"} MiB peak heap in 1 KiB × 1 resume.`,
    "",
    ...powerTable(rows),
    "",
    `Wall time ${(seconds / 60).toFixed(1)} min in total (${runs.length} of ${total} runs); per setting: ${[...wall].map(([s, ms]) => `${s} ${(ms / 1000).toFixed(0)} s`).join("; ")}.`,
    partial ? "Partial: the runs so far." : stopping ? "Interrupted: the table holds the runs that finished." : "",
  ];
  const text = `${lines.join("\n")}\n`;
  writeFileAtomic(join(opts.out, "power.md"), text);
  writeFileAtomic(
    join(opts.out, "power.json"),
    `${JSON.stringify({ machine, loadBefore, loadAfter, basis, settings, rows, runs, observations, seconds, disturbed }, null, 2)}\n`,
  );
  return text;
}

/** The simulation step: the rule's false alarms and power per noise level, side by side. */
function simulationText(opts: Options): string {
  const started = performance.now();
  const rows = opts.simNoise.flatMap((noise) => [1, 1.05].map((change) => simulate({ noise, change }, opts.sims)));
  const seconds = (performance.now() - started) / 1000;
  return `${[
    `# bench:power: the sequential rule by simulation (${opts.sims} cells per setting; looks at ${LOOKS.join(", ")} pairs at ${(LOOK_LEVEL * 100).toFixed(1)}% each)`,
    "",
    ...simulationTable(rows),
    "",
    `Simulated in ${seconds.toFixed(1)} s (load average ${loadavg()[0]?.toFixed(2)}).`,
    "",
  ].join("\n")}\n`;
}

async function main(): Promise<void> {
  let opts: Options;
  try {
    opts = options(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench:power: ${(e as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (opts.sims > 0) process.stdout.write(simulationText(opts));
  if (opts.simulateOnly) return;
  mkdirSync(opts.out, { recursive: true });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      stopping = true;
      current?.kill(signal); // the bench stops its targets and keeps what finished
    });
  }
  // The fixture's cursor names the case (resume-many) and the memory cells' resume mode.
  const { ensureFixture } = await import("../bench/fixtures/fixtures.js");
  const fixture = ensureFixture(fixtureCacheDir(), 1000, 1024, 1000, 1, (p, why) =>
    process.stderr.write(`building fixture ${p} (${why})\n`),
  );
  const cursor = fixture.meta.cursorSequence;
  const machine = `${cpus()[0]?.model.trim() ?? "?"} × ${cpus().length}, Node ${process.version}`;
  const loadBefore = loadavg().map((l) => l.toFixed(2));
  process.stderr.write(`bench:power: ${machine}; load average ${loadBefore.join(", ")}; out ${opts.out}\n`);

  const observations: Observation[] = [];
  const settings: Setting[] = [];
  const wall = new Map<string, number>();
  const disturbed = { rounds: 0, of: 0 };
  const runs: { setting: string; run: number; code: number | null; seconds: number; dir: string }[] = [];
  let basis: { completionMs: number | null; peakHeapMib: number | null } | null = null;
  const started = performance.now();
  const plan: { key: string; kind: Kind; spec: SizeSpec | null }[] = [
    { key: "null", kind: "null", spec: null },
    ...opts.delays.map((spec, i) => ({ key: `delay:${i}`, kind: "delay" as const, spec })),
    ...opts.holds.map((spec, i) => ({ key: `hold:${i}`, kind: "hold" as const, spec })),
  ];
  const byKey = new Map<string, Setting>();
  const total = opts.runs * plan.length;
  let n = 0;
  const state: RunState = { opts, machine, loadBefore, observations, settings, wall, disturbed, runs, started, total };
  const writeSummary = (partial: boolean) => summaryText({ ...state, basis }, partial);
  for (let r = 1; r <= opts.runs && !stopping; r++) {
    for (const { key, kind, spec } of plan) {
      if (stopping) break;
      n++;
      // Sizes are fixed once (percents by the first null run), so every repetition injects the same change.
      let setting = byKey.get(key);
      if (!setting) {
        const resolved =
          spec === null
            ? null
            : resolveSize(spec, kind === "delay" ? (basis?.completionMs ?? null) : (basis?.peakHeapMib ?? null));
        if (spec !== null && resolved === null) {
          process.stderr.write(`[${n}/${total}] skipped ${kind}: no null-run baseline to size a percent from\n`);
          continue;
        }
        setting = settingOf(kind, resolved?.size ?? null, resolved?.percent ?? null);
        settings.push(setting);
        byKey.set(key, setting);
      }
      const dir = join(opts.out, `${kind}${setting.size === null ? "" : `-${setting.size.toFixed(2)}`}-r${r}`);
      const { code, ms } = await runBench(benchArgs(kind, setting.size, cursor, opts, dir), `${dir}.log`);
      wall.set(setting.label, (wall.get(setting.label) ?? 0) + ms);
      runs.push({ setting: setting.label, run: r, code, seconds: ms / 1000, dir });
      const results = readResults(dir);
      const verdicts = (results?.verdicts ?? []).filter((v): v is CellVerdict => "undecided" in v);
      // A run cut short by Ctrl-C judged only what it had: it is not counted.
      if (stopping) break;
      observations.push(...observationsOf(setting, verdicts));
      if (results?.load) {
        for (const round of results.load.rounds) {
          disturbed.of++;
          if (round.disturbed) disturbed.rounds++;
        }
      }
      if (kind === "null" && results && basis === null) basis = baselineFigures(results);
      const shown = verdicts
        .filter((v) => v.guarded)
        .map((v) => `${v.metric} ${v.cell} ${v.verdict}${v.median === null ? "" : ` ${v.median.toFixed(3)}`}`)
        .join(", ");
      process.stderr.write(
        `[${n}/${total}] ${setting.label}, run ${r}: exit ${code} in ${(ms / 1000).toFixed(1)} s; ${shown || "no verdicts"}\n`,
      );
      writeSummary(true);
    }
  }
  const text = writeSummary(false);
  process.stdout.write(text);
}

main().catch((e) => {
  process.stderr.write(`bench:power: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
