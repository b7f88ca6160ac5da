// End to end: a seeded state is a template. It is copied exactly as it is (a relative link stays a
// relative link), so no trial can write into it; a link that leads outside it is refused; a --ref's
// template is kept beside its build, reused only when everything that decides it is the same, and
// checked against the digest of its files before each reuse.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startBench } from "../bench/bench-child.js";
import { BINDING, makeFixture, notesRepo, type SeedBench, seedScratch, start } from "./support.js";

// Each test runs `bench` once or more, on a shared machine: a seed under load takes seconds.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const s = seedScratch("seed-templates-");
afterAll(() => s.remove());

/** A binding that keeps notes-server's store behind a relative link: state/current -> v1. */
const LINKED = `import { symlinkSync } from "node:fs";
import { join } from "node:path";
import notes from ${JSON.stringify(BINDING)};
export default { ...notes, name: "linked", async prepare(ctx) {
  const prepared = await notes.prepare({ ...ctx, stateDir: join(ctx.stateDir, "v1") });
  symlinkSync("v1", join(ctx.stateDir, "current"));
  return prepared;
} };
`;

/** Every seeded state folder kept in a repository's template cache. */
function keptStates(repo: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      if (e.name === "state") found.push(join(dir, e.name));
      else walk(join(dir, e.name));
    }
  };
  const root = join(repo, ".git", "catchup-bench", "templates");
  if (existsSync(root)) walk(root);
  return found.sort();
}

/** A folder as it is: each file's bytes, each link's target (not followed). */
function snapshotOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const rel = relative(dir, path);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out[rel] = `-> ${readlinkSync(path)}`;
      else if (st.isDirectory()) walk(path);
      else out[rel] = readFileSync(path, "utf8");
    }
  };
  walk(dir);
  return out;
}

describe("a template with a relative link", () => {
  it("--target: every trial starts on its own copy; none reaches the template", async () => {
    const linked = s.binding("linked.mjs", LINKED);
    // NOTES_PRIVATE_STORE: a server refuses a store it reaches outside its state folder (the template).
    const target = `a=env NOTES_PRIVATE_STORE=1 ${start(undefined, "{state}/current")}`;
    const r = await s.bench(["--binding", linked, "--target", target]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.results?.latency.length).toBeGreaterThanOrEqual(3);
    expect(r.results?.latency.every((row) => row.ok)).toBe(true);
  });

  it("--ref: the kept template keeps the link as it was, no trial writes into it, and the next run reuses it", async () => {
    const repo = notesRepo(join(s.dir, "linked"));
    const linked = s.binding("linked-ref.mjs", LINKED);
    const args = [
      ...["--binding", linked, "--repo", repo, "--ref", "main=HEAD~1", "--ref", "head=HEAD"],
      ...["--start", `env NOTES_PRIVATE_STORE=1 ${start("server.mjs", "{state}/current")}`],
    ];
    const first = await s.bench(args);
    expect(first.code, first.stderr).toBe(0);
    const states = keptStates(repo);
    expect(states).toHaveLength(2);
    const before = states.map(snapshotOf);
    for (const kept of before) {
      expect(kept.current).toBe("-> v1");
      // One serve of the store: the seed's. A trial's serve went to its own copy.
      expect(kept["v1/starts"]?.trim().split("\n")).toHaveLength(1);
    }
    const second = await s.bench(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/seed: main on small\.sqlite: template from an earlier run/);
    expect(second.results?.latency.every((row) => row.ok)).toBe(true);
    expect(keptStates(repo).map(snapshotOf)).toEqual(before);
  });

  it("refuses a state whose link leads outside it, naming the link (exit 3)", async () => {
    const escaping = s.binding(
      "escaping.mjs",
      `import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import notes from ${JSON.stringify(BINDING)};
export default { ...notes, name: "escaping", async prepare(ctx) {
  mkdirSync(join(ctx.stateDir, "..", "shared"), { recursive: true });
  symlinkSync("../shared", join(ctx.stateDir, "cache"));
  return notes.prepare(ctx);
} };
`,
    );
    const r = await s.bench(["--binding", escaping, "--target", `a=${start()}`]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /catchup-bench: seed: a on small\.sqlite: the state folder's link cache -> \.\.\/shared leads outside it: every trial's copy would share what it points at/,
    );
    expect(r.results).toBeNull();
  });
});

describe("a --ref template is reused only when everything that decides it is the same", () => {
  let repo: string;
  let helper: string;
  let keyed: string;
  const other = join(s.dir, "other.sqlite");
  const run = (o: { start?: string; options?: string[]; fixture?: string } = {}) =>
    s.bench(
      [
        ...["--binding", keyed, "--repo", repo, "--ref", "main=HEAD~1", "--ref", "head=HEAD", "--no-aa"],
        ...["--start", o.start ?? start("server.mjs")],
        ...(o.options ?? []).flatMap((kv) => ["--binding-option", kv]),
      ],
      { cases: "snapshot", fixture: o.fixture },
    );
  const cached = (r: SeedBench) => r.results?.variants.map((v) => v.seed?.[0]?.cached);

  beforeAll(async () => {
    repo = notesRepo(join(s.dir, "keyed"));
    makeFixture(other, 2);
    helper = s.binding("keyed-helper.mjs", `export const suffix = "";\n`);
    keyed = s.binding(
      "keyed.mjs",
      `import notes from ${JSON.stringify(BINDING)};
import { suffix } from "./keyed-helper.mjs";
export default { ...notes, name: "keyed", write: (event, ctx) =>
  notes.write({ ...event, payload: { ...event.payload, title: event.payload.title + suffix } }, ctx) };
`,
    );
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(cached(first)).toEqual([false, false]);
  });

  it("the same inputs: the template from the earlier run", async () => {
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/seed: main on small\.sqlite: template from an earlier run/);
    expect(cached(r)).toEqual([true, true]);
  });

  it("a module the binding imports changed: seeded again, naming it", async () => {
    writeFileSync(helper, `export const suffix = " (2)";\n`);
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /seed: main on small\.sqlite: the template from an earlier run was seeded with another binding \(keyed-helper\.mjs changed\): seeding again/,
    );
    expect(cached(r)).toEqual([false, false]);
  });

  it("a --binding-option changed: seeded again, naming it", async () => {
    const r = await run({ options: ["prefix=x "] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/seeded with another --binding-option \(prefix\): seeding again/);
    expect(cached(r)).toEqual([false, false]);
  });

  it("the start command changed: seeded again, naming it", async () => {
    const r = await run({ options: ["prefix=x "], start: `env NOTES_MODE=other ${start("server.mjs")}` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/seeded with another start command: seeding again/);
    expect(cached(r)).toEqual([false, false]);
  });

  it("another fixture: its own template", async () => {
    const r = await run({
      options: ["prefix=x "],
      start: `env NOTES_MODE=other ${start("server.mjs")}`,
      fixture: other,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/template from an earlier run/);
    expect(cached(r)).toEqual([false, false]);
  });

  it("a damaged template (a store file emptied) is seeded again, naming the file", async () => {
    const o = { options: ["prefix=x "], start: `env NOTES_MODE=other ${start("server.mjs")}` };
    const store = keptStates(repo)
      .map((dir) => join(dir, "notes.jsonl"))
      .filter((f) => existsSync(f) && statSync(f).size > 0);
    expect(store.length).toBeGreaterThan(0);
    for (const f of store) writeFileSync(f, "");
    const r = await run(o);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /seed: main on small\.sqlite: the template from an earlier run changed since it was made \(notes\.jsonl: 0 bytes, was \d+\): seeding again/,
    );
    expect(cached(r)).toEqual([false, false]);
    expect(r.results?.latency.every((row) => row.ok)).toBe(true);
  });

  it("a template cache that cannot be written: one line, and the run goes on on its own seed", async () => {
    // Where each checkout keeps its templates, a file stands where the copy of a new one is made.
    const templates = join(repo, ".git", "catchup-bench", "templates");
    for (const checkout of readdirSync(templates)) {
      rmSync(join(templates, checkout), { recursive: true, force: true });
      mkdirSync(join(templates, checkout));
      writeFileSync(join(templates, checkout, "tmp"), "not a folder\n");
    }
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /catchup-bench: warning: seed: main on small\.sqlite: cannot keep the template in .*templates.* \(EEXIST: .*\): it is seeded again on the next run/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(cached(r)).toEqual([false, false]);
    expect(r.results?.latency.every((row) => row.ok)).toBe(true);
  });

  it("--clean-checkouts removes the templates with the builds", async () => {
    const clean = startBench(["--repo", repo, "--clean-checkouts"]);
    expect((await clean.exit(30_000)).code).toBe(0);
    expect(existsSync(join(repo, ".git", "catchup-bench", "templates"))).toBe(false);
  });
});
