// A foreign target whose server starts in a new session (`setsid node ...`) is out of reach of its
// process group: the harness and its reaper must still end it, whether the run finishes, or the
// harness is SIGKILLed. Also checks the plain progress lines name the cell and "trial i/N".
import { readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { descendants } from "../../scripts/sampler/procfs.js";
import { waitUntil } from "../hardening/support/harness.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { cmdline, ROOT, startBench, survivorsAfter } from "./bench-child.js";

let fixtures: TempFixtures | undefined;
let dir: string;
let fixture: string;
const doneDir = join(ROOT, "reports", `test-setsid-${process.pid}`);
// `; exit $?` keeps sh from exec'ing setsid, so setsid is no group leader and calls setsid() without forking.
const SETSID = "base=setsid node dist/server-under-test/main.js --db {db} --port {port} --delivery legacy; exit $?";

/** The session id of pid, from /proc/PID/stat (field 6). */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
}

/**
 * The server process in the bench's tree, if it runs: its port filled in, because a child the bench
 * forks (git, the reaper) shows the bench's own command line, --target spec and all, until it execs.
 */
const serverIn = (benchPid: number) =>
  descendants(benchPid).find((p) => /^\S*node .*server-under-test\/main\.js .*--port \d+/.test(cmdline(p)));

/**
 * The server in the bench's tree and the tree itself, taken together the first time the server is
 * seen (a starved test may first see it just before the run stops it, so nothing is read later).
 */
async function sightServer(benchPid: number, timeoutMs: number) {
  let seen: { server: number; session: number; tree: number[] } | undefined;
  await waitUntil(() => {
    const server = serverIn(benchPid);
    if (server === undefined) return false;
    try {
      seen = { server, session: sessionOf(server), tree: descendants(benchPid) };
    } catch {
      return false; // exited between the two reads
    }
    return true;
  }, timeoutMs);
  return seen;
}

/** Checks the server ran in a session of its own (else the test proves nothing). */
function expectOwnSession(seen: { server: number; session: number } | undefined, benchPid: number): void {
  expect(seen).toBeDefined();
  expect(seen?.session).toBe(seen?.server);
  expect(seen?.session).not.toBe(sessionOf(benchPid));
}

beforeAll(() => {
  fixtures = tempFixtures("bench-setsid");
  dir = fixtures.dir;
  fixture = fixtures.make("f", { projects: 100, scriptBytes: 128, events: 200, seed: 1 });
});

afterAll(() => {
  fixtures?.cleanup();
  rmSync(doneDir, { recursive: true, force: true });
});

const args = (out: string, trials: number) => [
  "--target",
  SETSID,
  "--cases",
  "resume-many",
  "--trials",
  String(trials),
  "--fixture",
  fixture,
  "--no-memory",
  "--out",
  out,
];

describe("a foreign target that calls setsid", () => {
  it("is stopped when the run ends; progress lines say cell and trial i/N", async () => {
    // Inside the project (reports/ is git-ignored) so the "Results:" line is shown relative to it.
    const bench = startBench([...args(doneDir, 2), "--ack-delay-ms", "300"]);
    // The server runs from before the warm-up to the end of the run: look for it as soon as it is
    // there (on "[1/2]" the short last trial may already be over and the server stopped).
    const seen = await sightServer(bench.pid, 30_000);
    expectOwnSession(seen, bench.pid);
    const tree = seen?.tree ?? [];
    const { code } = await bench.exit(30_000);
    expect(code, bench.stderr()).toBe(0);
    // The line may end with the ETA, weighted by measured trial durations.
    expect(bench.stderr()).toMatch(/\[1\/2\] resume-many base, trial 1\/2( \(ETA [^)]*\))?\n/);
    expect(bench.stderr()).toContain("[2/2] resume-many base, trial 2/2\n");
    const left = await survivorsAfter(tree, 2000);
    expect(left.map((p) => `${p} ${cmdline(p)}`)).toEqual([]);
    // The run records the fixture it used (the report's "Not measured" line is derived from it).
    expect(bench.stderr()).toContain(`Results: ${relative(ROOT, doneDir)}/results.json\n`);
    const run = (JSON.parse(readFileSync(join(doneDir, "results.json"), "utf8")) as Results).run;
    expect(run.fixtures).toEqual({
      // contentSha256: the digest of the one fixture the run measured (pinned at its start).
      latency: {
        projects: 100,
        events: 200,
        scriptBytesMin: 128,
        scriptBytesMax: 128,
        contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      memory: [],
    });
    expect(readFileSync(join(doneDir, "report.md"), "utf8")).toContain("(100 projects, 200 post-cursor events");
  }, 60_000);

  it("leaves nothing alive 2 s after the harness is SIGKILLed", async () => {
    const bench = startBench(args(join(dir, "killed"), 20));
    await bench.waitFor(/\[1\/20\]/, 30_000);
    const seen = await sightServer(bench.pid, 30_000);
    expectOwnSession(seen, bench.pid);
    const tree = seen?.tree ?? [];
    bench.child.kill("SIGKILL");
    await bench.exit(5_000);
    const left = await survivorsAfter(tree, 2000);
    expect(left.map((p) => `${p} ${cmdline(p)}`)).toEqual([]);
  }, 60_000);
});
