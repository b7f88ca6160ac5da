// `npm run bench:history`: the time `history record` takes for one commit of the bundled server (the
// snapshot and resume-many cases' latency at bench's default trials, no memory), once the commit's
// build and the fixture are cached: the figure docs/history.md states against its 60 s goal. It
// records into a scratch clone of this repository (its last two commits: HEAD~1 the anchor, HEAD
// the commit), warms the caches with one record, then times REPEATS records into fresh stores (a
// store that has the commit would skip it). Prints the times, their median and the machine's load.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../util/stats.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BIN = join(ROOT, "bin", "catchup-bench.js");
const REPEATS = Number(process.env.REPEATS ?? 3);
const START = "node dist/server-under-test/main.js --db {db} --port {port} --host 127.0.0.1 --delivery batched";

function run(cmd: string, args: string[], cwd: string, timeoutMs = 30 * 60_000): { ms: number; stderr: string } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: timeoutMs, stdio: ["ignore", "pipe", "pipe"] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}:\n${r.stderr}`);
  return { ms, stderr: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "bench-history-"));
try {
  const repo = join(dir, "repo");
  run("git", ["clone", "--quiet", ROOT, repo], dir);
  symlinkSync(join(ROOT, "node_modules"), join(repo, "node_modules"));
  const record = (store: string) =>
    run(
      process.execPath,
      [
        ...[BIN, "history", "record", "--commits", "HEAD~1..HEAD", "--anchor", "HEAD~1", "--history", store],
        ...["--build", "npm run build --silent", "--start", START],
        ...["--cases", "snapshot,resume-many", "--no-memory", "--fixtures-dir", join(dir, "fixtures")],
      ],
      repo,
    );
  const warm = record(join(dir, "warm.sqlite"));
  process.stdout.write(`warm-up (builds both commits, makes the fixture): ${(warm.ms / 1000).toFixed(1)} s\n`);
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const before = loadavg()[0] as number;
    const { ms } = record(join(dir, `store-${i}.sqlite`));
    times.push(ms / 1000);
    process.stdout.write(
      `record ${i + 1}: ${(ms / 1000).toFixed(1)} s (load ${before.toFixed(2)} → ${(loadavg()[0] as number).toFixed(2)})\n`,
    );
  }
  const line = {
    case: "history record, one commit, bundled server, snapshot + resume-many latency, no memory, cached build",
    cores: cpus().length,
    seconds: times.map((t) => +t.toFixed(1)),
    medianSeconds: +median(times).toFixed(1),
    goalSeconds: 60,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
