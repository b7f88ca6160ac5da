// End to end, on a scratch repository of the test notes server whose fifth commit makes its catch-up
// wait 100 ms longer: `bisect` from the first commit to the last names that commit (a bisect stopped
// by SIGINT during its second step resumes from the step it saved), and a range where nothing changed
// ends SAME with no culprit. The smallest settings that decide: one latency case, 3 pairs a step, every
// commit's catch-up waiting at least 50 ms (a timer-bound ~60 ms, whose spread stays well inside the
// 50% floor the timers get, while the 100 ms more makes them about 2.6×), and the probe's floor at
// 50 ms, above its ~1 ms replies: the noisy probe is not judged and does not decide.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../scripts/store/open-store.js";
import { ROOT } from "../bench/bench-child.js";
import { NOTES_TARGET, type NotesWorkspace, notesWorkspace } from "../history/notes-repo.js";
import { syntheticResults } from "../report/synthetic-run.js";
import { runNode } from "../support/child.js";

const BIN = join(ROOT, "bin", "catchup-bench.js");

let dir: string;
let repo: string;
let commits: string[];
let fixture: string;

const benchArgs = () => [
  ...NOTES_TARGET,
  ...["--cases", "resume-many", "--trials", "3", "--max-pairs", "6", "--ack-delay-ms", "0", "--no-memory", "--no-aa"],
  ...["--min-effect", "50%,probeMs=50ms", "--fixture", fixture],
];

interface Report {
  outcome: string | null;
  culprits: { commit: string; cells: { metric: string; outcome: string; ratio: number; low: number }[] }[];
  steps: { base: string; head: string; outcome: string; saved: boolean }[];
}

const bisect = (good: string, bad: string) =>
  runNode([BIN, "bisect", "--good", good, "--bad", bad, "--json", ...benchArgs()], {
    cwd: repo,
    timeoutMs: 300_000,
    label: "bisect",
  });

let workspace: NotesWorkspace;

beforeAll(() => {
  // Commits 0-3 as fast as each other, 4-7 100 ms slower: the culprit is commits[4].
  workspace = notesWorkspace("bisect-e2e-", [50, 50, 50, 50, 150, 150, 150, 150]);
  ({ dir, repo, commits, fixture } = workspace);
});

afterAll(() => workspace?.remove());

/** Starts a bisect of the whole range and sends it SIGINT once its second step's trials run. */
async function interruptedBisect(): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    [BIN, "bisect", "--good", commits[0] as string, "--bad", commits[7] as string, ...benchArgs()],
    {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let err = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no second step within 120 s:\n${err}`)), 120_000);
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      const second = err.indexOf("bisect: step 2:");
      if (second >= 0 && /\[1\/\d+\] resume-many/.test(err.slice(second))) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", () => reject(new Error(`bisect exited early:\n${err}`)));
  });
  child.kill("SIGINT");
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stderr: err };
}

/**
 * Synthetic latency-only record runs of commits 1-7 against commit 0 whose resume-many completion
 * doubles at commit 4 (as `history record` would have stored them): the change point to confirm.
 */
function seededRecords(): string[] {
  return commits.slice(1).map((head, i) => {
    const runDir = join(dir, "records", String(i + 1));
    mkdirSync(runDir, { recursive: true });
    const r = syntheticResults(runDir, {
      seed: i + 1,
      trials: 5,
      candidateFactor: 1,
      latencyNoise: 0.01,
      caseFactor: { "resume-many": i + 1 >= 4 ? 2 : 1 },
    });
    r.variants[0] = { ...(r.variants[0] as (typeof r.variants)[number]), commit: commits[0], dirty: false };
    r.variants[1] = { ...(r.variants[1] as (typeof r.variants)[number]), commit: head, dirty: false };
    r.memory = [];
    r.verdicts = undefined;
    writeFileSync(join(runDir, "results.json"), JSON.stringify(r));
    return runDir;
  });
}

describe("bisect (notes server)", () => {
  it("names the commit that added the delay, resuming a bisect stopped midway", { timeout: 600_000 }, async () => {
    const stopped = await interruptedBisect();
    expect(stopped.code, stopped.stderr).toBe(130);

    const done = await bisect(commits[0] as string, commits[7] as string);
    expect(done.code, done.stderr).toBe(0);
    const report = JSON.parse(done.stdout) as Report;
    expect(report.outcome).toBe("DIFFERENT");
    expect(report.culprits.map((c) => c.commit)).toEqual([commits[4]]);
    const completion = report.culprits[0]?.cells.find((c) => c.metric === "completionMs");
    expect(completion?.outcome).toBe("DIFFERENT");
    expect(completion?.low).toBeGreaterThan(1);
    // The first step (good against bad) was saved before the stop and read back, not measured again.
    expect(report.steps[0]).toMatchObject({ base: commits[0], head: commits[7], outcome: "DIFFERENT", saved: true });
    expect(report.steps.filter((s) => !s.saved).length).toBeGreaterThan(0);
    // Three halvings after the first step; one more where drift sets a lower half's interval apart from
    // the whole range's (the upper half is then compared end to end, bisect-search.ts).
    expect(report.steps.length).toBeLessThanOrEqual(5);

    const store = await openStore(join(repo, ".catchup-bench", "history.sqlite"));
    const saved = await store.db.selectFrom("bisection_step").select(["ord", "head_sha"]).orderBy("ord").execute();
    const bisection = await store.db.selectFrom("bisection").select(["status", "outcome"]).execute();
    await store.close();
    expect(saved.map((s) => s.ord)).toEqual(report.steps.map((_, i) => i + 1));
    expect(bisection).toEqual([{ status: "done", outcome: "DIFFERENT" }]);
  });

  it("ends SAME, with no culprit, over a range where nothing changed", { timeout: 300_000 }, async () => {
    const done = await bisect(commits[0] as string, commits[3] as string);
    expect(done.code, done.stderr).toBe(0);
    const report = JSON.parse(done.stdout) as Report;
    expect(report.outcome).toBe("SAME");
    expect(report.culprits).toEqual([]);
    expect(report.steps.map((s) => s.outcome)).toEqual(["SAME"]);
  });

  it("history confirm --bisect re-measures a change point and writes its culprit into the store and the page", {
    timeout: 300_000,
  }, async () => {
    const store = join(dir, "confirm.sqlite");
    const history = (...args: string[]) =>
      runNode([BIN, "history", ...args, "--history", store], {
        cwd: repo,
        timeoutMs: 300_000,
        label: `history ${args[0]}`,
      });
    const added = await history("add", ...seededRecords(), "--kind", "record", "--branch", "main", "--repo", repo);
    expect(added.code, added.stderr).toBe(0);
    // Seven points, 3 before the change and 4 after: the permutation test's p cannot go much below 0.07.
    const detect = ["--p-value", "0.1", "--permutations", "999"];
    const confirmed = await history("confirm", "--bisect", ...detect, "--json", ...benchArgs());
    expect(confirmed.code, confirmed.stderr).toBe(0);
    const out = JSON.parse(confirmed.stdout) as {
      confirmations: { stable: string; commit: string; outcome: string; culprits: string[] | null }[];
    };
    expect(out.confirmations).toMatchObject([
      { stable: commits[3], commit: commits[4], outcome: "DIFFERENT", culprits: [commits[4]] },
    ]);
    // A confirmed alert is not measured again; the page lists the confirmation and its culprit.
    const again = await history("confirm", ...detect, "--json", ...benchArgs());
    expect(again.stderr).toMatch(/\(saved\)/);
    const page = join(dir, "history.html");
    const written = await history("page", ...detect, "--out", page);
    expect(written.code, written.stderr).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toContain("1 change point re-measured: 1 confirmed, 0 rejected");
    const row = [commits[4], commits[3]].map((c) => `<td>${(c as string).slice(0, 12)}</td>`).join("");
    expect(html).toContain(`${row}<td>DIFFERENT</td>`);
  });
});
