// What the load phase's end-to-end files share: notes-server (a server we did not write) and its
// binding, a small fixture per file, `bench` as a real child with notes-server's protocol flags, and
// a git repository of the server for the --ref runs.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateFixture } from "../../fixtures/generate.js";
import type { Results } from "../../scripts/results/schema.js";
import { ROOT, startBench } from "../bench/bench-child.js";
import { git } from "../refs/support.js";

export const SERVER = fileURLToPath(new URL("notes-server.mjs", import.meta.url));
export const BINDING = fileURLToPath(new URL("notes-binding.mjs", import.meta.url));

/** notes-server's start command, with `{state}` (or a folder below it) as its store. */
export const start = (server = SERVER, state = "{state}") => `node ${server} serve --state ${state} --port {port}`;

export interface SeedBench {
  code: number | null;
  stderr: string;
  results: Results | null;
  out: string;
}

/** A scratch folder with a 20-project fixture (50 project events, 256-byte scripts) and `bench` runs in it. */
export function seedScratch(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const fixture = join(dir, "small.sqlite");
  makeFixture(fixture, 1);
  let runs = 0;

  /** notes-server's protocol flags, and a small latency run on the fixture. */
  const notesArgs = (cases = "snapshot,resume-many,resume-none", onFixture = fixture): string[] => [
    ...["--cases", cases, "--trials", "1", "--ack-delay-ms", "0", "--fixture", onFixture],
    ...["--subscribe-tag", "Notes.Watch", "--subscribe-payload", '{"since":{after}}', "--completion", "type=ready"],
    ...["--probe-tag", "Notes.Ping", "--url-path", "/rpc"],
  ];

  /** `bench` to its exit with notes-server's flags and `args` (no memory cells unless `memory` gives their flags). */
  const bench = async (
    args: string[],
    o: { cases?: string; fixture?: string; memory?: string[]; timeoutMs?: number } = {},
  ): Promise<SeedBench> => {
    const out = join(dir, `run-${++runs}`);
    const child = startBench([
      ...notesArgs(o.cases, o.fixture),
      ...(o.memory ?? ["--no-memory"]),
      "--out",
      out,
      ...args,
    ]);
    const { code } = await child.exit(o.timeoutMs ?? 120_000);
    const file = join(out, "results.json");
    const results = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Results) : null;
    return { code, stderr: child.stderr(), results, out };
  };

  /** A binding module in the scratch folder: `source` is its text (it may import BINDING). */
  const binding = (name: string, source: string): string => {
    const path = join(dir, name);
    writeFileSync(path, source);
    return path;
  };

  return { dir, fixture, notesArgs, bench, binding, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function makeFixture(out: string, seed: number): void {
  generateFixture({
    projects: 20,
    scriptBytesMin: 256,
    scriptBytesMax: 256,
    scriptsPerProject: 1,
    events: 30,
    seed,
    out,
  });
}

/** A git repository of notes-server (server.mjs) with two commits, for --repo/--ref runs. */
export function notesRepo(dir: string): string {
  const repo = join(dir, "notes-repo");
  mkdirSync(dir, { recursive: true });
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
  return repo;
}
