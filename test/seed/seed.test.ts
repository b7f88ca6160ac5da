// End to end: the load phase seeds a server we did not write (notes-server.mjs: its own store, its
// own write RPCs) through a binding written from docs/bindings.md, checks it, and every trial runs on
// a copy of the seeded state with the server's own cursors and token. A seed that fails or disagrees
// with the fixture stops the run before anything is measured; a --ref's template is kept and reused.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import type { Results } from "../../scripts/results/schema.js";
import { descendants } from "../../scripts/sampler/procfs.js";
import { ROOT, startBench, survivorsAfter } from "../bench/bench-child.js";
import { git } from "../refs/support.js";
import { cmdline } from "../support/orphans.js";

const SERVER = fileURLToPath(new URL("notes-server.mjs", import.meta.url));
const BINDING = fileURLToPath(new URL("notes-binding.mjs", import.meta.url));
const start = (server = SERVER) => `node ${server} serve --state {state} --port {port}`;

let dir: string;
let fixture: string;
let runs = 0;

/** The protocol flags for notes-server, and a small latency run on the test fixture. */
const notesArgs = (): string[] => [
  "--cases",
  "snapshot,resume-many,resume-none",
  "--trials",
  "1",
  "--ack-delay-ms",
  "0",
  "--fixture",
  fixture,
  "--subscribe-tag",
  "Notes.Watch",
  "--subscribe-payload",
  '{"since":{after}}',
  "--completion",
  "type=ready",
  "--probe-tag",
  "Notes.Ping",
  "--url-path",
  "/rpc",
];

async function bench(args: string[], memory: string[] = ["--no-memory"]) {
  const out = join(dir, `run-${++runs}`);
  const child = startBench([...notesArgs(), ...memory, "--out", out, ...args]);
  const { code } = await child.exit(90_000);
  const file = join(out, "results.json");
  const results = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Results) : null;
  return { code, stderr: child.stderr(), results, out };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "seed-"));
  fixture = join(dir, "small.sqlite");
  generateFixture({
    projects: 20,
    scriptBytesMin: 256,
    scriptBytesMax: 256,
    scriptsPerProject: 1,
    events: 30,
    seed: 1,
    out: fixture,
  });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("bench --binding", () => {
  it("seeds each variant through its own API and runs every case on the server's own cursors and token", async () => {
    const { code, stderr, results } = await bench([
      "--binding",
      BINDING,
      "--target",
      `a=${start()}`,
      "--target",
      `b=${start()}`,
    ]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/seed: a: seeded small\.sqlite: 50 events in [\d.]+ s \(\d+\/s\); cursor 20, latest 50/);
    const seed = results?.variants.find((v) => v.name === "b")?.seed;
    expect(seed).toMatchObject([
      { fixture: "small.sqlite", binding: "notes", events: 50, cursorSequence: 20, latestSequence: 50, cached: false },
    ]);
    // Every trial authenticated with the token the server issued (it refuses any other) and got its catch-up.
    const rows = results?.latency ?? [];
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows.every((r) => r.ok)).toBe(true);
    // resume-none resumes after the server's latest sequence (50): the marker alone; resume-many after 20: 30 changes.
    const bytes = (c: string) => rows.find((r) => r.case === c && r.variant === "a")?.bytes ?? 0;
    expect(bytes("resume-none")).toBeLessThan(100);
    expect(bytes("resume-many")).toBeGreaterThan(30 * 256);
    const report = readFileSync(join(dir, `run-${runs}`, "report.md"), "utf8");
    expect(report).toMatch(/## Seeding: each variant's state, through its own API/);
    expect(report).toMatch(/\| a \| small\.sqlite \| notes \| 50 \|.*\| 20 \/ 50 \| this run \|/);
  });

  it("gives each fixture's template its own token: memory cells on another fixture than the latency cases", async () => {
    const memory = ["--memory-trials", "1", "--script-bytes", "1024", "--clients", "1", "--memory-sequential", "0"];
    const fixtures = ["--fixtures-dir", join(dir, "fixtures")];
    const { code, stderr, results } = await bench(
      ["--binding", BINDING, "--target", `a=${start()}`, ...fixtures],
      memory,
    );
    expect(code, stderr).toBe(0);
    expect(results?.variants[0]?.seed?.map((s) => s.fixture)).toEqual(["small.sqlite", "p1000-s1024-e1000.sqlite"]);
    // notes-server issues a token per store: a trial that sent the other seed's token would get 401.
    expect(results?.memory.length).toBe(2);
    expect(results?.memory.every((m) => m.ok)).toBe(true);
  });

  it("stops before any trial, with one line naming the variant and the event, when a write fails", async () => {
    const { code, stderr, results } = await bench([
      "--binding",
      BINDING,
      "--target",
      `b=env NOTES_FAIL_AT=7 ${start()}`,
    ]);
    expect(code).toBe(3);
    expect(stderr).toMatch(
      /catchup-bench: seed: b on small\.sqlite: writing event 7 \(project\.created\): Notes\.Put failed: .*write 7 refused/,
    );
    expect(results).toBeNull();
    expect(stderr).not.toMatch(/\[1\//);
  });

  it("stops when the server's snapshot disagrees with the fixture", async () => {
    // A binding that loses one project: it renames another instead of creating or renaming it.
    const lossy = join(dir, "lossy-binding.mjs");
    writeFileSync(
      lossy,
      `import notes from ${JSON.stringify(BINDING)};
let first, lost;
export default { ...notes, name: "lossy", async write(event, ctx) {
  first ??= event.payload.projectId;
  if (event.sequence === 3) lost = event.payload.projectId;
  if (event.payload.projectId !== lost) return notes.write(event, ctx);
  return (await ctx.rpc.call("Notes.Rename", { id: first, title: "lost" })).seq;
} };
`,
    );
    const { code, stderr, results } = await bench(["--binding", lossy, "--target", `a=${start()}`]);
    expect(code).toBe(3);
    expect(stderr).toMatch(/seed: a on small\.sqlite: the server's snapshot holds 19 projects, the fixture 20/);
    expect(results).toBeNull();
  });

  it("Ctrl-C during the seed stops its server at once and exits 130, measuring nothing", async () => {
    // A binding whose writes hang: the stop must not wait for a reply.
    const stuck = join(dir, "stuck-binding.mjs");
    writeFileSync(
      stuck,
      `import notes from ${JSON.stringify(BINDING)};
export default { ...notes, name: "stuck", async write(event, ctx) {
  if (event.sequence < 15) return notes.write(event, ctx);
  process.stderr.write("stuck at event " + event.sequence + "\\n");
  return new Promise(() => {});
} };
`,
    );
    const out = join(dir, "stopped");
    const child = startBench([...notesArgs(), "--out", out, "--binding", stuck, "--target", `a=${start()}`]);
    await child.waitFor(/stuck at event 15/, 30_000);
    const tree = descendants(child.pid);
    expect(tree.some((p) => cmdline(p).includes("notes-server.mjs serve"))).toBe(true);
    child.child.kill("SIGINT");
    const { code } = await child.exit(10_000);
    expect(code, child.stderr()).toBe(130);
    expect(child.stderr()).toMatch(/catchup-bench: seed: stopped by SIGINT; nothing was measured/);
    expect(existsSync(join(out, "results.json"))).toBe(false);
    expect(await survivorsAfter(tree, 2000)).toEqual([]);
  });

  it("refuses a module that is not a binding (exit 2, naming what it lacks)", async () => {
    const bad = join(dir, "bad-binding.mjs");
    writeFileSync(bad, `export default { name: "half", kinds: ["project"] };\n`);
    const { code, stderr } = await bench(["--binding", bad, "--target", `a=${start()}`]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(
      /--binding .*bad-binding\.mjs: not a binding; it lacks write\(event, ctx\) \(a function\); summarize\(items\) \(a function\)/,
    );
  });
});

describe("bench --binding --repo --ref", () => {
  it("keeps a ref's template beside its build, reuses it on the next run, and --clean-checkouts removes it", async () => {
    const repo = join(dir, "notes-repo");
    git(dir, "init", "-q", "-b", "main", repo);
    writeFileSync(join(repo, "server.mjs"), readFileSync(SERVER, "utf8"));
    writeFileSync(join(repo, ".gitignore"), "node_modules\n");
    // The checkouts live inside the repository's git dir: Node finds effect by walking up to here.
    symlinkSync(join(ROOT, "node_modules"), join(repo, "node_modules"));
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "notes server");
    writeFileSync(join(repo, "README"), "second revision\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "a readme");
    const refArgs = [
      ...["--binding", BINDING, "--repo", repo, "--ref", "main=HEAD~1", "--ref", "head=HEAD"],
      ...["--start", start("server.mjs")],
    ];
    const first = await bench(refArgs);
    expect(first.code, first.stderr).toBe(0);
    expect(first.results?.variants[1]?.seed?.[0]).toMatchObject({ events: 50, cached: false });
    const second = await bench(refArgs);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/seed: main on small\.sqlite: template from an earlier run/);
    expect(second.results?.variants[1]?.seed?.[0]).toMatchObject({ events: 50, cursorSequence: 20, cached: true });
    expect(second.results?.latency.every((r) => r.ok)).toBe(true);
    // One template per checkout (build), each keyed by fixture and binding.
    const templates = join(repo, ".git", "catchup-bench", "templates");
    expect(readdirSync(templates).sort()).toHaveLength(2);
    const clean = startBench(["--repo", repo, "--clean-checkouts"]);
    expect((await clean.exit(30_000)).code).toBe(0);
    expect(existsSync(templates)).toBe(false);
  });
});
