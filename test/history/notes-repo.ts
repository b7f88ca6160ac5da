// Test aid: a scratch git repository of the test notes server (test/seed/notes-server.mjs) whose
// subscription waits DELAY_MS (delay.mjs) before its catch-up, with one commit per entry of
// `delays`: a commit that raises the delay is the change a history must find.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateFixture } from "../../fixtures/generate.js";
import { ROOT } from "../bench/bench-child.js";
import { git } from "../refs/support.js";

const SERVER = fileURLToPath(new URL("../seed/notes-server.mjs", import.meta.url));
export const NOTES_BINDING = fileURLToPath(new URL("../seed/notes-binding.mjs", import.meta.url));

const ORIGINAL = 'return Stream.concat(Stream.fromIterable([...items, { type: "ready", seq }]), Stream.never);';
const DELAYED =
  'return Stream.unwrap(Effect.as(Effect.sleep(DELAY_MS), Stream.concat(Stream.fromIterable([...items, { type: "ready", seq }]), Stream.never)));';

/** The notes server with its catch-up delayed by delay.mjs's DELAY_MS. */
function delayedServer(): string {
  const source = readFileSync(SERVER, "utf8");
  if (!source.includes(ORIGINAL)) throw new Error("notes-server.mjs changed: update test/history/notes-repo.ts");
  const lines = source.replace(ORIGINAL, DELAYED).split("\n");
  const lastImport = lines.findLastIndex((l) => l.startsWith("import "));
  lines.splice(lastImport + 1, 0, 'import { DELAY_MS } from "./delay.mjs";');
  return lines.join("\n");
}

/** Creates the repository at `repo` with one commit per delay (ms); returns the commits, oldest first. */
export function notesRepo(parent: string, repo: string, delays: readonly number[]): string[] {
  git(parent, "init", "-q", "-b", "main", repo);
  writeFileSync(join(repo, "server.mjs"), delayedServer());
  writeFileSync(join(repo, ".gitignore"), "node_modules\n.catchup-bench\nreports\n");
  // The checkouts live inside the repository's git dir: Node finds effect by walking up to here.
  symlinkSync(join(ROOT, "node_modules"), join(repo, "node_modules"));
  const commits: string[] = [];
  for (const [i, delay] of delays.entries()) {
    writeFileSync(join(repo, "delay.mjs"), `export const DELAY_MS = ${delay};\n`);
    writeFileSync(join(repo, "NOTES"), `revision ${i}\n`);
    git(repo, "add", "-A");
    git(
      repo,
      "commit",
      "-q",
      "-m",
      delay > 0 && (delays[i - 1] ?? 0) === 0 ? `wait ${delay} ms before the catch-up` : `revision ${i}`,
    );
    commits.push(git(repo, "rev-parse", "HEAD"));
  }
  return commits;
}

/** The notes server as a bench target: its start command, binding, subscription and probe. */
export const NOTES_TARGET = [
  ...["--start", "node server.mjs serve --state {state} --port {port}", "--binding", NOTES_BINDING],
  ...["--subscribe-tag", "Notes.Watch", "--subscribe-payload", '{"since":{after}}', "--completion", "type=ready"],
  ...["--probe-tag", "Notes.Ping", "--url-path", "/rpc"],
];

export interface NotesWorkspace {
  dir: string;
  /** The notes repository, one commit per delay. */
  repo: string;
  commits: string[];
  /** A small fixture (10 projects, 10 events). */
  fixture: string;
  /** Removes it all, unless CATCHUP_KEEP_HISTORY=1 keeps it for a look. */
  remove(): void;
}

/** A temp folder with the notes repository (one commit per delay, oldest first) and a small fixture. */
export function notesWorkspace(prefix: string, delays: readonly number[]): NotesWorkspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const fixture = join(dir, "small.sqlite");
  generateFixture({
    ...{ projects: 10, scriptBytesMin: 128, scriptBytesMax: 128, scriptsPerProject: 1 },
    ...{ events: 10, seed: 1, out: fixture },
  });
  const repo = join(dir, "notes");
  const commits = notesRepo(dir, repo, delays);
  const remove = () => {
    if (!process.env.CATCHUP_KEEP_HISTORY) rmSync(dir, { recursive: true, force: true });
  };
  return { dir, repo, commits, fixture, remove };
}
