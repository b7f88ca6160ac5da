// `npm run bench:bisect`: what a bisection costs on the bundled server (the snapshot and resume-many
// cases' latency, no memory): the time of one step once its commits' checkouts and fixture are
// cached, and the steps a bisection of 8 commits takes to its culprit. It makes a scratch repository
// of 9 commits whose start script runs this package's bundled server with the legacy delivery, the
// sixth switching to batched (a real change: one chunk instead of several); commits need no build.
// A step is timed as `bisect` of one commit (good its parent) with --max-pairs at --trials, so it is
// one comparison at bench's default 8 pairs; the 8-commit bisection runs with the default cap.
// Prints the times, the steps, and the machine's load before and after each.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../util/stats.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BIN = join(ROOT, "bin", "catchup-bench.js");
const REPEATS = Number(process.env.REPEATS ?? 3);
/** The practical floor: SAME needs the whole interval inside it, which 1% rarely is on a loaded machine. */
const MIN_EFFECT = process.env.MIN_EFFECT ?? "10%";
const CULPRIT = 5;

function run(cmd: string, args: string[], cwd: string, timeoutMs = 60 * 60_000) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: timeoutMs, stdio: ["ignore", "pipe", "pipe"] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}:\n${r.stderr}`);
  return { ms, stdout: r.stdout };
}

const git = (repo: string, ...args: string[]) => run("git", args, repo).stdout.trim();

/** The scratch repository: commit i starts the bundled server legacy before CULPRIT, batched from it. */
function scratchRepo(dir: string): string[] {
  const repo = join(dir, "repo");
  run("git", ["init", "-q", "-b", "main", repo], dir);
  git(repo, "config", "user.email", "bench@example.invalid");
  git(repo, "config", "user.name", "bench");
  const server = join(ROOT, "dist", "server-under-test", "main.js");
  const commits: string[] = [];
  for (let i = 0; i <= 8; i++) {
    const delivery = i >= CULPRIT ? "batched" : "legacy";
    writeFileSync(
      join(repo, "start.sh"),
      `exec node ${JSON.stringify(server)} --db "$1" --port "$2" --host 127.0.0.1 --delivery ${delivery}\n# revision ${i}\n`,
    );
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", i === CULPRIT ? "deliver the catch-up batched" : `revision ${i}`);
    commits.push(git(repo, "rev-parse", "HEAD"));
  }
  return commits;
}

interface Report {
  outcome: string;
  culprits: { commit: string }[];
  steps: { pairs: number; outcome: string }[];
}

const dir = mkdtempSync(join(tmpdir(), "bench-bisect-"));
try {
  const commits = scratchRepo(dir);
  const repo = join(dir, "repo");
  const bisect = (good: string, bad: string, store: string, extra: string[] = []) => {
    const before = loadavg()[0] as number;
    const r = run(
      process.execPath,
      [
        ...[BIN, "bisect", "--good", good, "--bad", bad, "--history", store, "--json", "--min-effect", MIN_EFFECT],
        ...["--start", "sh start.sh {db} {port}", "--cases", "snapshot,resume-many", "--no-memory"],
        ...["--fixtures-dir", join(dir, "fixtures"), ...extra],
      ],
      repo,
    );
    const load = `load ${before.toFixed(2)} → ${(loadavg()[0] as number).toFixed(2)}`;
    return { seconds: r.ms / 1000, load, report: JSON.parse(r.stdout) as Report };
  };
  const oneStep = ["--max-pairs", "8"];
  const warm = bisect(commits[CULPRIT - 1] as string, commits[CULPRIT] as string, join(dir, "warm.sqlite"), oneStep);
  process.stdout.write(`warm-up (checkouts, fixture): ${warm.seconds.toFixed(1)} s, ${warm.load}\n`);
  const steps: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const s = bisect(
      commits[CULPRIT - 1] as string,
      commits[CULPRIT] as string,
      join(dir, `step-${i}.sqlite`),
      oneStep,
    );
    steps.push(s.seconds);
    process.stdout.write(`one step: ${s.seconds.toFixed(1)} s (${s.report.steps[0]?.outcome}), ${s.load}\n`);
  }
  const whole = bisect(commits[0] as string, commits[8] as string, join(dir, "eight.sqlite"));
  const found = whole.report.culprits.map((c) => c.commit);
  process.stdout.write(
    `8 commits: ${whole.report.steps.length} steps (${whole.report.steps.map((s) => `${s.outcome} at ${s.pairs}`).join(", ")}), ${whole.seconds.toFixed(1)} s, ${whole.load}; culprit ${found.map((c) => c.slice(0, 12)).join(", ") || "none"} (expected ${(commits[CULPRIT] as string).slice(0, 12)})\n`,
  );
  const line = {
    case: "bisect on the bundled server, snapshot + resume-many latency, no memory, cached checkouts and fixture",
    cores: cpus().length,
    minEffect: MIN_EFFECT,
    stepSeconds: steps.map((t) => +t.toFixed(1)),
    medianStepSeconds: +median(steps).toFixed(1),
    stepGoalSeconds: 45,
    eightCommits: {
      steps: whole.report.steps.length,
      seconds: +whole.seconds.toFixed(1),
      culpritFound: found.includes(commits[CULPRIT] as string),
    },
    stepsGoal: 4,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
