// End to end, on a scratch repository of the test notes server whose fifth commit makes its catch-up
// wait 100 ms: `bisect` from the first commit to the last names that commit (a bisect stopped by
// SIGINT during its second step resumes from the step it saved), and a range where nothing changed
// ends SAME with no culprit. The smallest settings that decide: one latency case, 3 pairs a step, a
// practical floor of 50 ms (the delay is twice it; the notes server's own spread stays inside it).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import { openStore } from "../../scripts/store/open-store.js";
import { ROOT } from "../bench/bench-child.js";
import { NOTES_BINDING, notesRepo } from "../history/notes-repo.js";
import { runNode } from "../support/child.js";

const BIN = join(ROOT, "bin", "catchup-bench.js");

let dir: string;
let repo: string;
let commits: string[];
let fixture: string;

const benchArgs = () => [
  ...["--start", "node server.mjs serve --state {state} --port {port}", "--binding", NOTES_BINDING],
  ...["--cases", "resume-many", "--trials", "3", "--max-pairs", "6", "--ack-delay-ms", "0", "--no-memory", "--no-aa"],
  ...["--min-effect", "50ms", "--fixture", fixture, "--subscribe-tag", "Notes.Watch"],
  ...["--subscribe-payload", '{"since":{after}}', "--completion", "type=ready", "--probe-tag", "Notes.Ping"],
  ...["--url-path", "/rpc"],
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

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bisect-e2e-"));
  repo = join(dir, "notes");
  fixture = join(dir, "small.sqlite");
  generateFixture({
    projects: 10,
    scriptBytesMin: 128,
    scriptBytesMax: 128,
    scriptsPerProject: 1,
    events: 10,
    seed: 1,
    out: fixture,
  });
  // Commits 0-3 as fast as each other, 4-7 100 ms slower: the culprit is commits[4].
  commits = notesRepo(dir, repo, [0, 0, 0, 0, 100, 100, 100, 100]);
});

afterAll(() => {
  if (dir && !process.env.CATCHUP_KEEP_HISTORY) rmSync(dir, { recursive: true, force: true });
});

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
    expect(report.steps.length).toBeLessThanOrEqual(4);

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
});
