// `npm run bench:fixture`: the fixture generator's throughput and peak RSS beside a minimal
// better-sqlite3 baseline measured in the same run (one table, one prepared statement, one
// transaction, the same number of rows and the same stored bytes). Each measurement runs in its own
// child process (compiled JS) so peak RSS (process.resourceUsage().maxRSS) belongs to it alone.
// Prints one table and one JSON line per case; timings are reported as ratios within this run.
import { spawn } from "node:child_process";
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { generateFixture } from "../../fixtures/generate.js";

interface Case {
  projects: number;
  scriptBytes: number;
  events: number;
  repeats: number;
}

const CASES: Case[] = [
  // A pair takes ~0.3 s with process starts: enough pairs that one busy moment cannot set the median.
  { projects: 1000, scriptBytes: 8192, events: 1000, repeats: 15 },
  { projects: 100_000, scriptBytes: 8192, events: 1000, repeats: 3 },
];

/** What a child reports: wall time of the write, its peak RSS, and what it stored. */
interface Measurement {
  ms: number;
  maxRssBytes: number;
  rows: number;
  storedBytes: number;
  rowBytes?: { creation: number; projection: number; update: number };
}

const MiB = 1024 * 1024;
const SELF = fileURLToPath(import.meta.url);
const CHILD_TIMEOUT_MS = 10 * 60_000;

// ---- child side ------------------------------------------------------------------------------

// Bytes of every stored text column, per row kind (so the baseline can store the same bytes).
const STORED_BYTES_SQL = `
SELECT
  (SELECT coalesce(sum(length(CAST(event_id || aggregate_kind || stream_id || event_type || occurred_at
     || payload_json || metadata_json AS BLOB))), 0) FROM orchestration_events WHERE sequence <= ?) AS creation,
  (SELECT coalesce(sum(length(CAST(project_id || title || workspace_root || scripts_json || created_at
     || updated_at AS BLOB))), 0) FROM projection_projects) AS projection,
  (SELECT coalesce(sum(length(CAST(event_id || aggregate_kind || stream_id || event_type || occurred_at
     || payload_json || metadata_json AS BLOB))), 0) FROM orchestration_events WHERE sequence > ?) AS updates`;

function childGenerator(c: Case, out: string): Measurement {
  const parent = process.ppid;
  // Timed here, as the baseline times itself: from the call to the fsynced file, module load and
  // process start excluded for both (summary.durationMs would also do; this keeps one method).
  const started = performance.now();
  generateFixture({
    projects: c.projects,
    scriptBytesMin: c.scriptBytes,
    scriptBytesMax: c.scriptBytes,
    scriptsPerProject: 1,
    events: c.events,
    seed: 1,
    out,
    // Stop (removing the temp file) if the benchmark process died: we were re-parented.
    onProgress: () => {
      if (process.ppid !== parent) throw new Error("benchmark parent exited");
    },
  });
  const ms = performance.now() - started;
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  const db = new Database(out, { readonly: true });
  const sums = db.prepare(STORED_BYTES_SQL).get(c.projects, c.projects) as {
    creation: number;
    projection: number;
    updates: number;
  };
  db.close();
  return {
    ms,
    maxRssBytes,
    rows: 2 * c.projects + c.events,
    storedBytes: sums.creation + sums.projection + sums.updates,
    rowBytes: {
      creation: Math.round(sums.creation / c.projects),
      projection: Math.round(sums.projection / c.projects),
      update: c.events === 0 ? 0 : Math.round(sums.updates / c.events),
    },
  };
}

function childBaseline(c: Case, out: string, rowBytes: NonNullable<Measurement["rowBytes"]>): Measurement {
  // Bodies are built before the clock starts: the baseline measures SQLite writes only. The clock
  // then runs from opening the database to the fsynced file, as the generator's does.
  const creation = "c".repeat(rowBytes.creation);
  const projection = "p".repeat(rowBytes.projection);
  const update = "u".repeat(rowBytes.update);
  const started = performance.now();
  const db = new Database(out);
  db.pragma("journal_mode = OFF"); // the same pragmas the generator builds with
  db.pragma("synchronous = OFF");
  db.exec("CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO rows (id, body) VALUES (?, ?)");
  let id = 0;
  db.transaction(() => {
    for (let i = 0; i < c.projects; i++) {
      insert.run(++id, creation);
      insert.run(++id, projection);
    }
    for (let k = 0; k < c.events; k++) insert.run(++id, update);
  })();
  db.close();
  const fd = openSync(out, "r");
  fsyncSync(fd);
  closeSync(fd);
  const ms = performance.now() - started;
  return {
    ms,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    rows: id,
    storedBytes: c.projects * (rowBytes.creation + rowBytes.projection) + c.events * rowBytes.update,
  };
}

// ---- parent side -----------------------------------------------------------------------------

const children = new Set<ReturnType<typeof spawn>>();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill("SIGKILL");
    process.exit(130);
  });
}

function runChild(args: string[]): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, "--child", ...args], { stdio: ["ignore", "pipe", "inherit"] });
    children.add(child);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolve(JSON.parse(out) as Measurement);
      else reject(new Error(`benchmark child ${args[0]} failed (code ${code}, signal ${signal})`));
    });
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

async function parentMain(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "catchup-fixture-bench-"));
  try {
    console.log(
      `fixture generator vs minimal better-sqlite3 baseline (node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1)})`,
    );
    for (const c of CASES) {
      const loadBefore = loadavg()[0] ?? 0;
      const gen: Measurement[] = [];
      const base: Measurement[] = [];
      for (let r = 0; r < c.repeats; r++) {
        // Alternate which one runs first, so a warm page cache or a busy neighbour favours neither.
        const genOut = join(dir, `gen-${r}.sqlite`);
        const baseOut = join(dir, `base-${r}.sqlite`);
        const runGen = async () => {
          gen.push(await runChild(["generator", JSON.stringify(c), genOut]));
          rmSync(genOut, { force: true });
        };
        // The baseline needs the generator's per-row sizes: the first repeat runs the generator first.
        const runBase = async () => {
          const rowBytes = gen[0]?.rowBytes;
          if (!rowBytes) throw new Error("generator has not run yet");
          base.push(await runChild(["baseline", JSON.stringify(c), baseOut, JSON.stringify(rowBytes)]));
          rmSync(baseOut, { force: true });
        };
        if (r % 2 === 0) {
          await runGen();
          await runBase();
        } else {
          await runBase();
          await runGen();
        }
      }
      const g = { ms: median(gen.map((m) => m.ms)), rss: Math.max(...gen.map((m) => m.maxRssBytes)) };
      const b = { ms: median(base.map((m) => m.ms)), rss: Math.max(...base.map((m) => m.maxRssBytes)) };
      // Each repeat ran the two back to back: the statistic is the median of the paired ratios.
      const ratios = gen.map((m, i) => (base[i] as Measurement).ms / m.ms);
      const ratio = median(ratios);
      const stored = (gen[0] as Measurement).storedBytes;
      const rows = (gen[0] as Measurement).rows;
      const label = `${c.projects} projects x ${c.scriptBytes} B, ${c.events} events`;
      const line = (name: string, ms: number, rss: number) =>
        `  ${name} median ${ms.toFixed(0)} ms  ${(stored / MiB / (ms / 1000)).toFixed(1)} MiB/s  ${Math.round(rows / (ms / 1000))} rows/s  peak RSS ${(rss / MiB).toFixed(1)} MiB (max of repeats)`;
      const load = `load average ${loadBefore.toFixed(1)} -> ${(loadavg()[0] ?? 0).toFixed(1)}`;
      console.log(
        `\n${label} (${(stored / MiB).toFixed(1)} MiB stored, ${rows} rows, ${c.repeats} repeat(s), ${load})`,
      );
      console.log(line("generator:", g.ms, g.rss));
      console.log(line("baseline: ", b.ms, b.rss));
      console.log(
        `  throughput generator/baseline: median of paired ratios ${ratio.toFixed(2)} (range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}; target >= 0.70)`,
      );
      console.log(
        JSON.stringify({
          case: label,
          storedBytes: stored,
          rows,
          generatorMs: gen.map((m) => Math.round(m.ms)),
          baselineMs: base.map((m) => Math.round(m.ms)),
          generatorPeakRssBytes: g.rss,
          baselinePeakRssBytes: b.rss,
          pairedRatios: ratios.map((r) => Number(r.toFixed(3))),
          throughputRatio: Number(ratio.toFixed(3)),
          loadAverage: [Number(loadBefore.toFixed(2)), Number((loadavg()[0] ?? 0).toFixed(2))],
        }),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  const [, , , kind, caseJson, out, extra] = process.argv;
  const c = JSON.parse(caseJson as string) as Case;
  const m =
    kind === "generator"
      ? childGenerator(c, out as string)
      : childBaseline(c, out as string, JSON.parse(extra as string) as NonNullable<Measurement["rowBytes"]>);
  process.stdout.write(JSON.stringify(m));
} else {
  parentMain().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
