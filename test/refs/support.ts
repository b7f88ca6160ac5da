// Test aid: a temporary git repository holding a tiny Effect RPC server (plain Node + the project's
// installed `ws`, speaking the Effect RPC JSON wire protocol with ACK gating) whose catch-up sends
// CHUNKS Chunk frames, the last carrying the completion marker. CHUNKS lives in chunks.mjs, so two
// commits differ in that one file. Its build (build.mjs) copies the sources into dist/ and appends a
// line to a counter file outside the repository, so a test can count builds.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateFixture } from "../../fixtures/generate.js";

const WS = fileURLToPath(new URL("../../node_modules/ws/wrapper.mjs", import.meta.url));

const SERVER = `// A tiny Effect RPC server over WebSocket for the refs tests: CHUNKS chunks through completion.
import { WebSocketServer } from ${JSON.stringify(WS)};
import { CHUNKS } from "./chunks.mjs";

const i = process.argv.indexOf("--port");
const port = Number(process.argv[i + 1]);
const wss = new WebSocketServer({ host: "127.0.0.1", port, path: "/ws" });
wss.on("connection", (ws) => {
  const queues = new Map();
  const send = (m) => ws.send(JSON.stringify(m));
  const next = (id) => {
    const q = queues.get(id);
    if (!q) return;
    const values = q.shift();
    if (values === undefined) {
      queues.delete(id);
      send({ _tag: "Exit", requestId: id, exit: { _tag: "Success", value: null } });
    } else send({ _tag: "Chunk", requestId: id, values });
  };
  ws.on("message", (data) => {
    const m = JSON.parse(String(data));
    if (m._tag === "Ping") return send({ _tag: "Pong" });
    if (m._tag === "Ack") return next(m.requestId);
    if (m._tag !== "Request") return;
    if (m.tag === "server.getConfig") {
      return send({ _tag: "Exit", requestId: m.id, exit: { _tag: "Success", value: { chunks: CHUNKS } } });
    }
    if (m.tag !== "orchestration.subscribeShell") {
      return send({ _tag: "Defect", defect: "Unknown request tag: " + m.tag });
    }
    const chunks = [];
    for (let c = 1; c < CHUNKS; c++) chunks.push([{ kind: "snapshot", part: c }]);
    chunks.push([{ kind: "synchronized" }]);
    queues.set(m.id, chunks);
    next(m.id);
  });
});
for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => process.exit(0));
`;

const BUILD = `// Copies the sources into dist/ and counts the build in the file named by argv[2].
import { appendFileSync, copyFileSync, mkdirSync } from "node:fs";
mkdirSync("dist", { recursive: true });
for (const f of ["server.mjs", "chunks.mjs"]) copyFileSync(f, "dist/" + f);
appendFileSync(process.argv[2], process.cwd() + "\\n");
console.log("built", process.cwd());
`;

export const chunksModule = (n: number) => `export const CHUNKS = ${n};\n`;

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "test",
      GIT_AUTHOR_EMAIL: "test@localhost",
      GIT_COMMITTER_NAME: "test",
      GIT_COMMITTER_EMAIL: "test@localhost",
    },
  }).trim();
}

export interface TestRepo {
  dir: string;
  /** Commits by tag: v1 sends 3 chunks, v2 (HEAD) sends 1. */
  v1: string;
  v2: string;
  /** The build command: counts builds in `counter`. */
  build: string;
  counter: string;
  start: string;
}

/** Creates the repository under `parent`: tag v1 (3 chunks), then HEAD = tag v2 (1 chunk). */
export function makeRepo(parent: string): TestRepo {
  const dir = join(parent, "server-repo");
  mkdirSync(dir, { recursive: true });
  const counter = join(parent, "builds.txt");
  writeFileSync(counter, "");
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, ".gitignore"), "dist/\n");
  writeFileSync(join(dir, "server.mjs"), SERVER);
  writeFileSync(join(dir, "build.mjs"), BUILD);
  writeFileSync(join(dir, "chunks.mjs"), chunksModule(3));
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "three chunks");
  git(dir, "tag", "v1");
  writeFileSync(join(dir, "chunks.mjs"), chunksModule(1));
  writeFileSync(join(dir, "README"), "one chunk now\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "one chunk");
  git(dir, "tag", "v2");
  return {
    dir,
    v1: git(dir, "rev-parse", "v1^{commit}"),
    v2: git(dir, "rev-parse", "v2^{commit}"),
    build: `node build.mjs ${counter}`,
    counter,
    start: "node dist/server.mjs --port {port}",
  };
}

/** A fresh temporary directory holding the test repository and a small fixture (10 projects, 64-byte scripts). */
export function repoWithFixture(prefix: string): { dir: string; repo: TestRepo; fixture: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const repo = makeRepo(dir);
  const fixture = join(dir, "small.sqlite");
  generateFixture({
    projects: 10,
    scriptBytesMin: 64,
    scriptBytesMax: 64,
    scriptsPerProject: 1,
    events: 5,
    seed: 1,
    out: fixture,
  });
  return { dir, repo, fixture };
}

/** A quick latency-only bench of the snapshot case on `fixture`, as the refs tests run it. */
export const quickArgs = (fixture: string, trials = 1): string[] => [
  "--no-memory",
  "--cases",
  "snapshot",
  "--trials",
  String(trials),
  "--ack-delay-ms",
  "0",
  "--fixture",
  fixture,
];

/** A quick refs bench of the test repository with its counting build, into `out` (the refs follow). */
export const refsRunArgs = (repo: TestRepo, fixture: string, out: string): string[] => [
  ...quickArgs(fixture),
  "--out",
  out,
  "--repo",
  repo.dir,
  "--build",
  repo.build,
  "--start",
  repo.start,
];
