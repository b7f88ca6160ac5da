// End to end: the load phase seeds a server we did not write (notes-server.mjs: its own store, its
// own write RPCs) through a binding written from docs/bindings.md, checks it, and every trial runs on
// a copy of the seeded state with the server's own cursors and token. A seed that fails or disagrees
// with the fixture stops the run before anything is measured (templates: seed-templates.test.ts; hangs and
// stops: seed-hangs.test.ts); a binding that returns or throws the wrong thing is named in one line.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { BINDING, seedScratch, start } from "./support.js";

// Each test runs `bench` once or more, on a shared machine: a seed under load takes seconds.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const s = seedScratch("seed-");
afterAll(() => s.remove());
const { bench } = s;
const dir = s.dir;

describe("bench --binding", () => {
  it("seeds each variant through its own API and runs every case on the server's own cursors and token", async () => {
    const { code, stderr, results, out } = await bench([
      "--binding",
      BINDING,
      "--target",
      `a=${start()}`,
      "--target",
      `b=${start()}`,
    ]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      /seed: a: seeded small\.sqlite: 50 events in [\d.]+ s \(\d+\/s, 16 in flight; server start\+stop [\d.]+ s, answering [\d.]+ s, harness [\d.]+ s\); cursor 20, latest 50/,
    );
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
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toMatch(/## Seeding: each variant's state, through its own API/);
    expect(report).toMatch(/\| a \| small\.sqlite \| notes \| 50 \|.*\| 20 \/ 50 \| this run \|/);
  });

  it("gives each fixture's template its own token: memory cells on another fixture than the latency cases", async () => {
    const memory = ["--memory-trials", "1", "--script-bytes", "1024", "--clients", "1", "--memory-sequential", "0"];
    const fixtures = ["--fixtures-dir", join(dir, "fixtures")];
    const { code, stderr, results } = await bench(["--binding", BINDING, "--target", `a=${start()}`, ...fixtures], {
      memory,
    });
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

describe("bench --binding: one line for what a binding got wrong", () => {
  /** Runs notes-binding with `member` replaced; one line on stderr naming the binding and what it returned. */
  const withMember = (file: string, member: string) =>
    s.binding(file, `import notes from ${JSON.stringify(BINDING)};\nexport default { ...notes, ${member} };\n`);
  const lines = (stderr: string) =>
    stderr
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("catchup-bench:"));

  it("an unknown --binding-option: exit 2, a suggestion and the options the binding declares", async () => {
    const { code, stderr } = await bench([
      "--binding",
      BINDING,
      "--target",
      `a=${start()}`,
      "--binding-option",
      "prefx=1",
    ]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(
      /catchup-bench: --binding-option prefx: the binding notes has no such option \(did you mean prefix\?\); its options: prefix/,
    );
  });

  it("--binding naming a folder: exit 2, one line", async () => {
    const folder = join(dir, "binding-folder");
    mkdirSync(folder, { recursive: true });
    const { code, stderr } = await bench(["--binding", `${folder}/`, "--target", `a=${start()}`]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/catchup-bench: --binding .*binding-folder\/?: is a folder; name the binding's module file/);
  });

  it("a prepare that returns a token that is not a string is refused, naming the binding (not the server's 401)", async () => {
    const numeric = withMember(
      "numeric-token.mjs",
      `name: "numeric", async prepare(ctx) { await notes.prepare(ctx); return { token: 12345 }; }`,
    );
    const { code, stderr } = await bench(["--binding", numeric, "--target", `a=${start()}`]);
    expect(code).toBe(3);
    expect(lines(stderr)).toEqual([
      "catchup-bench: seed: a on small.sqlite: the numeric binding's prepare returned {token: 12345}: token must be a non-empty string (got the number 12345)",
    ]);
  });

  it("a summarize that returns nothing is one line naming the binding, not a stack trace", async () => {
    const empty = withMember("empty-summary.mjs", `name: "empty", summarize() {}`);
    const { code, stderr } = await bench(["--binding", empty, "--target", `a=${start()}`]);
    expect(code).toBe(3);
    expect(lines(stderr)).toEqual([
      "catchup-bench: seed: a on small.sqlite: the empty binding's summarize returned undefined: it must return {projects, scriptBytes, sequence}",
    ]);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("a summarize whose figures are strings names the field, and a write that throws a non-Error says what it threw", async () => {
    const strings = withMember(
      "string-summary.mjs",
      `name: "strings", summarize(items) { const s = notes.summarize(items); return { ...s, projects: String(s.projects) }; }`,
    );
    const r1 = await bench(["--binding", strings, "--target", `a=${start()}`]);
    expect(r1.code).toBe(3);
    expect(lines(r1.stderr)).toEqual([
      'catchup-bench: seed: a on small.sqlite: the strings binding\'s summarize returned {projects: "20", scriptBytes: 5120, sequence: 50}: projects must be a whole number >= 0 (got the string "20")',
    ]);
    const throwing = withMember("throws-undefined.mjs", `name: "throwing", async write() { throw undefined; }`);
    const r2 = await bench(["--binding", throwing, "--target", `a=${start()}`]);
    expect(r2.code).toBe(3);
    expect(lines(r2.stderr)).toEqual([
      "catchup-bench: seed: a on small.sqlite: writing event 1 (project.created): the throwing binding's write threw undefined (not an Error)",
    ]);
  });
});
