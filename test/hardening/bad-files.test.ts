// The bad-file walk: every command, given every kind of bad file or path where it reads or writes
// one — missing, a directory, a device, a FIFO, truncated, the wrong schema or shape, a place it
// cannot write, a file it cannot read — exits 2 with ONE line naming the input, no stack trace, and
// writes nothing (its scratch cwd stays empty, the inputs are unchanged, the device is still a device).
// The device is a null device node made for the test (mknod): a regression that replaced it must
// never replace the machine's /dev/null.
//
// Tests run as root, so permission bits cannot make a file unreadable or a folder unwritable. Instead:
// unreadable = /proc/self/mem (a regular file whose read fails with EIO) or a symlink to it;
// unwritable = a path under a regular file (ENOTDIR), a path under /proc (the kernel refuses), or a
// report.md that is a directory (rename fails). Not simulated: EACCES from mode bits, a read-only
// mount, a full disk (ENOSPC).
//
// Runs the real compiled CLI, but for the cases after the first of `fixture` and `k6-operator` groups
// below (IN_PROCESS): those stop at a path before anything starts, so they run through the CLI's
// main() in this process. A FIFO case always runs as a real process: a regression that opened it
// would block this one.
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticResults } from "../report/synthetic-run.js";
import { runMain } from "../support/cli-in-process.js";
import { runCli } from "./support/harness.js";
import { inputsWithFixtures, listing } from "./support/inputs.js";

let root: string;
let inputs: string;
let inputsBefore: string[];

/** A run folder holding results.json with this text (and nothing else). */
function runWith(name: string, text: string): void {
  mkdirSync(join(inputs, name));
  writeFileSync(join(inputs, name, "results.json"), text);
}

beforeAll(() => {
  let good: string;
  ({ root, inputs, good } = inputsWithFixtures("catchup-badfiles-"));
  writeFileSync(join(inputs, "truncated.sqlite"), readFileSync(good).subarray(0, 8192));
  mkdirSync(join(inputs, "dir"));
  execFileSync("mkfifo", [join(inputs, "fifo")]);
  // Our own null device: a case that wrongly replaced it would replace this node, never /dev/null.
  execFileSync("mknod", [join(inputs, "null"), "c", "1", "3"]);
  writeFileSync(join(inputs, "a-file"), "");
  symlinkSync("/proc/self/mem", join(inputs, "unreadable.sqlite"));
  writeFileSync(join(inputs, "script.js"), "export default function () {}\n");
  // Output paths that exist as names but cannot be followed: a link to nothing, a link to itself.
  symlinkSync(join(inputs, "nowhere"), join(inputs, "dangling"));
  symlinkSync("loop", join(inputs, "loop"));

  syntheticResults(join(inputs, "run"), { trials: 2 });
  const good_ = readFileSync(join(inputs, "run", "results.json"), "utf8");
  runWith("run-truncated", good_.slice(0, 200));
  runWith("run-schema", JSON.stringify({ ...JSON.parse(good_), schema: "catchup-bench/results@9" }));
  runWith("run-no-run", JSON.stringify({ ...JSON.parse(good_), run: undefined }));
  runWith("run-latency-shape", JSON.stringify({ ...JSON.parse(good_), latency: { rows: [] } }));
  runWith("run-row-shape", JSON.stringify({ ...JSON.parse(good_), memory: [{ ok: "yes" }] }));
  mkdirSync(join(inputs, "run-fifo"));
  execFileSync("mkfifo", [join(inputs, "run-fifo", "results.json")]);
  mkdirSync(join(inputs, "run-dir", "results.json"), { recursive: true });
  mkdirSync(join(inputs, "run-unreadable"));
  symlinkSync("/proc/self/mem", join(inputs, "run-unreadable", "results.json"));
  // Hand-edited results: each field the reports read, given a value of the wrong type or no real duration.
  // biome-ignore lint/suspicious/noExplicitAny: a hand edit reaches into JSON of any shape
  const edited = (name: string, edit: (r: Record<string, any>) => void) => {
    const r = JSON.parse(good_);
    edit(r);
    runWith(name, JSON.stringify(r));
  };
  edited("run-load", (r) => {
    r.run.loadAverage = [1, 2, "x"];
  });
  edited("run-git", (r) => {
    r.run.gitCommit = 42;
  });
  edited("run-error", (r) => {
    r.latency[0].error = 12345;
  });
  edited("run-crash-empty", (r) => {
    r.targetCrashes = [{}];
  });
  edited("run-crash-null", (r) => {
    r.targetCrashes = [null];
  });
  edited("run-negative", (r) => {
    r.latency[0].completionMs = -5;
  });
  edited("run-huge", (r) => {
    r.latency[0].completionMs = 1e308;
  });
  edited("run-attribution-line", (r) => {
    const frame = { functionName: "f", url: "file:///a.js", line: "x" };
    const row = { variant: "a", mode: "memory", kind: "peak", ok: true, scriptBytes: 1, clients: 1, taken: "peak" };
    Object.assign(row, { peakHeapBytes: null, sampledBytes: null, heapAtProfileBytes: null });
    r.attribution = { intervalBytes: 32768, rows: [{ ...row, sites: [{ frame, caller: null, bytes: 1 }] }] };
  });
  // Sequential memory rounds, hand-edited: a figure that is no number, a reason the report has no words for.
  const rounds = { budgetSeconds: 60, spentSeconds: 1, targetPairs: 6, cells: [{ cell: "c", pairs: 3, why: "pairs" }] };
  edited("run-rounds-spent", (r) => {
    r.memoryRounds = { ...rounds, spentSeconds: "x" };
  });
  edited("run-rounds-why", (r) => {
    r.memoryRounds = { ...rounds, cells: [{ cell: "c", pairs: 3, why: "__proto__" }] };
  });
  edited("run-rounds-cells", (r) => {
    r.memoryRounds = { ...rounds, cells: 5 };
  });
  // A run stopped hard (only results.jsonl) whose lines were edited: crash {} and null, stop reason 42.
  const header = JSON.parse(good_);
  const jsonl = (name: string, line: unknown) => {
    mkdirSync(join(inputs, name));
    const lines = [
      { kind: "run", schema: header.schema, run: header.run, variants: header.variants },
      ...header.latency.map((row: unknown) => ({ kind: "latency", row })),
      line,
    ];
    writeFileSync(join(inputs, name, "results.jsonl"), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  };
  jsonl("jsonl-crash-empty", { kind: "crash", crash: {} });
  jsonl("jsonl-crash-null", { kind: "crash", crash: null });
  jsonl("jsonl-stop-42", { kind: "stop", reason: 42 });
  // A runner summary for `report --merge`, and an --out whose merged.md is a directory.
  const session = {
    ok: true,
    completionMs: 10,
    firstChunkMs: 5,
    chunks: 1,
    values: 1,
    bytes: 1,
    probeMs: 1,
    error: null,
  };
  writeFileSync(
    join(inputs, "summary-a.json"),
    JSON.stringify({
      schema: "catchup-bench/k6-summary@1",
      scenario: "scaleout",
      sessions: 1,
      rows: [session],
      figures: { completionMs: { count: 1, min: 10, max: 10, avg: 10, med: 10 }, probeMs: null, errors: 0 },
    }),
  );
  mkdirSync(join(inputs, "merge-mdir", "merged.md"), { recursive: true });
  // A samples file larger than a report reads (sparse: no disk used).
  writeFileSync(join(inputs, "huge-samples.jsonl"), "");
  truncateSync(join(inputs, "huge-samples.jsonl"), 600 * 1024 * 1024);
  // A run folder the report cannot be written into: report.md is a directory.
  runWith("run-unwritable", good_);
  mkdirSync(join(inputs, "run-unwritable", "report.md"));
  inputsBefore = listing(inputs);
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Case {
  args: string;
  says: RegExp;
  env?: Record<string, string>;
}

/** The kinds of bad input file, as paths (IN/ = the inputs folder), and what the one line says. */
const BAD_INPUTS: [string, string, RegExp][] = [
  ["missing", "IN/missing.sqlite", /missing\.sqlite: no such file/],
  ["a directory", "IN/dir", /dir: not a regular file/],
  ["a device", "IN/null", /null: not a regular file/],
  ["a FIFO", "IN/fifo", /fifo: not a regular file/],
  ["truncated", "IN/truncated.sqlite", /truncated\.sqlite: corrupt or truncated/],
  ["the wrong schema", "IN/v2.sqlite", /v2\.sqlite: schema version 2 is not supported/],
  ["unreadable", "IN/unreadable.sqlite", /unreadable\.sqlite: cannot be read \(EIO/],
];

const fixtureInputs = (command: (path: string) => string): Case[] =>
  BAD_INPUTS.map(([, path, says]) => ({ args: command(path), says }));

/** Each output flag given a dangling link and a link loop, itself or as the folder above the path. */
const LINK_SAYS = (link: string) => new RegExp(`${link} is a (symbolic link to nothing|loop of symbolic links)`);
const linkOutputs = (command: (link: string) => string): Case[] =>
  ["dangling", "loop"].map((link) => ({ args: command(link), says: LINK_SAYS(link) }));

const CASES: Record<string, Case[]> = {
  "output paths through a dangling link or a link loop": [
    ...linkOutputs((l) => `bench --no-memory --fixture IN/good.sqlite --out IN/${l}`),
    ...linkOutputs((l) => `bench --no-memory --fixture IN/good.sqlite --out IN/${l}/run`),
    ...linkOutputs((l) => `bench --no-latency --out OUT/b --fixtures-dir IN/${l}`),
    ...linkOutputs((l) => `clinic doctor --fixture IN/good.sqlite --out IN/${l}`),
    ...linkOutputs((l) => `k6-operator IN/script.js --parallelism 2 --out IN/${l}`),
    ...linkOutputs((l) => `report --merge IN/script.js --out IN/${l}`),
    ...linkOutputs((l) => `fixture --projects 5 --events 5 --out IN/${l}/f.sqlite`),
  ],
  // The agent never overwrites: any entry at --out (a link to nothing, a loop, a folder) is refused
  // before sampling starts. PID = this test's own process (a live one to sample).
  "sample --out": [
    ...["dangling", "loop"].map((l) => ({
      args: `sample --pid PID --duration 5 --out IN/${l}`,
      says: new RegExp(`--out .*${l} exists already \\(a symbolic link\\); the agent never overwrites`),
    })),
    { args: "sample --pid PID --duration 5 --out IN/dir", says: /--out .*dir exists already \(a directory\)/ },
    { args: "sample --pid PID --duration 5 --out IN/a-file", says: /--out .*a-file exists already \(a file\)/ },
    { args: "sample --pid PID --duration 5 --out IN/a-file/s.jsonl", says: /--out .*writable directory.*ENOTDIR/ },
  ],
  "fixture (its --out)": [
    {
      args: "fixture --force --projects 5 --events 5 --out IN/null",
      says: /--out .*null is a character device.*regular file/,
    },
    { args: "fixture --force --projects 5 --events 5 --out IN/fifo", says: /--out .*fifo is a FIFO.*regular file/ },
    { args: "fixture --force --projects 5 --events 5 --out IN/dir", says: /--out .*dir is a directory/ },
    { args: "fixture --projects 5 --events 5 --out IN/good.sqlite", says: /good\.sqlite already exists.*--force/ },
    { args: "fixture --projects 5 --events 5 --out IN/a-file/f.sqlite", says: /--out .*writable directory.*ENOTDIR/ },
    { args: "fixture --projects 5 --events 5 --out /proc/catchup-no/f.sqlite", says: /--out .*writable directory/ },
  ],
  "fixture info": fixtureInputs((p) => `fixture info ${p}`),
  "bench --fixture": fixtureInputs((p) => `bench --no-memory --cases snapshot --trials 1 --out OUT/b --fixture ${p}`),
  "bench (places it writes)": [
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out IN/run",
      says: /--out .*run is not empty .*pick a new directory/,
    },
    { args: "bench --no-memory --fixture IN/good.sqlite --out IN/null", says: /--out .*writable directory.*ENOTDIR/ },
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out IN/a-file/run",
      says: /--out .*writable directory.*ENOTDIR/,
    },
    { args: "bench --no-memory --fixture IN/good.sqlite --out /proc/catchup-no", says: /--out .*writable directory/ },
    {
      args: "bench --no-latency --out OUT/b --fixtures-dir IN/a-file/fx",
      says: /--fixtures-dir .*writable directory.*ENOTDIR/,
    },
    {
      args: "bench --no-latency --out OUT/b --fixtures-dir /proc/catchup-no",
      says: /--fixtures-dir .*writable directory/,
    },
    { args: "bench --no-latency --out OUT/b --fixtures-dir IN/null", says: /--fixtures-dir .*writable directory/ },
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out OUT/b",
      env: { TMPDIR: "IN/a-file" },
      says: /temp directory .*a-file \(TMPDIR\) must be a writable directory \(ENOTDIR\)/,
    },
    // A FIFO is never opened for reading (it would block in open() until a writer came).
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out OUT/b --token-file IN/fifo",
      says: /--token-file must be a readable file .*fifo: not a regular file/,
    },
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out OUT/b --token-file IN/null",
      says: /--token-file must be a readable file .*null: not a regular file/,
    },
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out OUT/b --token-file IN/dir",
      says: /--token-file must be a readable file .*dir: (not a regular file|EISDIR)/,
    },
    {
      args: "bench --no-latency --clients 1000 --script-bytes 1048576 --out OUT/b",
      says: /needs a catch-up frame of about .* GiB.*--no-memory-check/,
    },
  ],
  report: [
    { args: "report IN/missing-run", says: /no results\.json in .*missing-run/ },
    { args: "report IN/dir", says: /no results\.json in .*dir \(ENOENT\)/ },
    { args: "report IN/a-file", says: /no results\.json in .*a-file/ },
    { args: "report IN/null", says: /no results\.json in .*null/ },
    { args: "report IN/run-truncated", says: /run-truncated\/results\.json is not valid JSON/ },
    { args: "report IN/run-schema", says: /run-schema\/results\.json has schema "catchup-bench\/results@9"/ },
    { args: "report IN/run-no-run", says: /run-no-run\/results\.json has no `run` object/ },
    {
      args: "report IN/run-latency-shape",
      says: /run-latency-shape\/results\.json has a `latency` that is not an array/,
    },
    {
      args: "report IN/run-row-shape",
      says: /run-row-shape\/results\.json has memory\[0\] without ok, variant and trial/,
    },
    { args: "report IN/run-load", says: /run-load\/results\.json has run\.loadAverage\[2\] = "x": expected a finite/ },
    { args: "report IN/run-git", says: /has run\.gitCommit = 42: expected a string or null/ },
    { args: "report IN/run-error", says: /has latency\[0\]\.error = 12345: expected a string or null/ },
    { args: "report IN/run-crash-empty", says: /has targetCrashes\[0\]\.variant = missing: expected a string/ },
    { args: "report IN/run-crash-null", says: /has targetCrashes\[0\] = null: expected an object/ },
    { args: "report IN/run-negative", says: /has latency\[0\]\.completionMs = -5: expected a duration from 0/ },
    { args: "report IN/run-huge", says: /has latency\[0\]\.completionMs = 1e\+308: expected a duration from 0/ },
    {
      args: "report IN/run-attribution-line",
      says: /has attribution\.rows\[0\]\.sites\[0\]\.frame\.line = "x": expected a number >= 0/,
    },
    { args: "report IN/run-rounds-spent", says: /has memoryRounds\.spentSeconds = "x": expected a number >= 0/ },
    {
      args: "report IN/run-rounds-why",
      says: /has memoryRounds\.cells\[0\]\.why = "__proto__": expected one of pairs, decided, futile, clear, equivalent, budget, missing/,
    },
    { args: "report IN/run-rounds-cells", says: /has memoryRounds\.cells = 5: expected an array/ },
    { args: "report IN/jsonl-crash-empty", says: /results\.jsonl has targetCrashes\[0\]\.variant = missing/ },
    { args: "report IN/jsonl-crash-null", says: /results\.jsonl has targetCrashes\[0\] = null/ },
    { args: "report IN/jsonl-stop-42", says: /results\.jsonl has run\.stopReason = 42: expected a string or null/ },
    { args: "report IN/run-fifo", says: /cannot read results\.json in .*run-fifo \(not a regular file\)/ },
    { args: "report IN/run-dir", says: /cannot read results\.json in .*run-dir \(not a regular file\)/ },
    { args: "report IN/run-unreadable", says: /cannot read results\.json in .*run-unreadable \(EIO\)/ },
    { args: "report IN/run-unwritable", says: /cannot write the reports into .*run-unwritable \(EISDIR\)/ },
    { args: "report IN/run --out OUT/elsewhere", says: /--out is for --merge; `report RUN` writes report\.md/ },
    {
      args: "report --merge IN/summary-a.json --out IN/merge-mdir",
      says: /merge-mdir already holds merged\.md; a merge never overwrites/,
    },
    { args: "report --merge IN/summary-a.json --out IN/run", says: /--out .*run is a bench run's folder/ },
    { args: "report --merge IN/missing.json", says: /--merge .*missing\.json: ENOENT/ },
    { args: "report --merge IN/fifo", says: /--merge .*fifo: not a regular file/ },
    { args: "report --merge IN/null", says: /--merge .*null: not a regular file/ },
    { args: "report --merge IN/a-file", says: /--merge .*a-file: not readable JSON/ },
    { args: "report --merge IN/summary-a.json --samples IN/fifo", says: /--samples .*fifo: not a regular file/ },
    { args: "report --merge IN/summary-a.json --samples IN/null", says: /--samples .*null: not a regular file/ },
    { args: "report --merge IN/summary-a.json --samples IN/dir", says: /--samples .*dir: not a regular file/ },
    {
      args: "report --merge IN/summary-a.json --samples IN/huge-samples.jsonl",
      says: /--samples .*huge-samples\.jsonl: 629145600 bytes, more than the 400 MiB this report reads/,
    },
  ],
  "clinic --fixture": fixtureInputs((p) => `clinic doctor --out OUT/c --fixture ${p}`),
  "clinic (places and sizes)": [
    { args: "clinic doctor --fixture IN/good.sqlite --out IN/a-file/c", says: /--out .*writable directory/ },
    { args: "clinic doctor --fixture IN/good.sqlite --out /proc/catchup-no", says: /--out .*writable directory/ },
    { args: "clinic doctor --out OUT/c --script-bytes 63", says: /--script-bytes .*64/ },
  ],
  "serve --db": fixtureInputs((p) => `serve --exit-with-parent --db ${p}`),
  fuzz: [
    {
      args: "fuzz --seconds 1",
      env: { TMPDIR: "IN/a-file" },
      says: /temp directory .*a-file \(TMPDIR\) must be a writable directory \(ENOTDIR\)/,
    },
    {
      args: "fuzz --seconds 1",
      env: { TMPDIR: "/proc/catchup-no" },
      says: /temp directory \/proc\/catchup-no \(TMPDIR\) must be a writable directory/,
    },
  ],
  "k6-operator": [
    { args: "k6-operator IN/missing.js --parallelism 2 --out OUT/k", says: /script.*missing\.js/ },
    { args: "k6-operator IN/dir --parallelism 2 --out OUT/k", says: /script.*dir/ },
    { args: "k6-operator IN/null --parallelism 2 --out OUT/k", says: /script.*null/ },
    { args: "k6-operator IN/fifo --parallelism 2 --out OUT/k", says: /script.*fifo/ },
    { args: "k6-operator IN/script.js --parallelism 2 --out IN/a-file/k", says: /--out .*a-file/ },
    { args: "k6-operator IN/script.js --parallelism 2 --out /proc/catchup-no", says: /--out .*catchup-no/ },
    // An image lands unquoted in server-pod-snippet.yaml and README.md: a newline would add YAML keys.
    {
      args: "k6-operator IN/script.js --parallelism 2 --out OUT/k --server-pod-snippet --server-port 80 --agent-image=img:1\nsecurityContext:{privileged:true}",
      says: /--agent-image must be an image reference .*got "img:1\\nsecurityContext/,
    },
    {
      args: "k6-operator IN/script.js --parallelism 2 --out OUT/k --image=k6img\nrm",
      says: /--image must be an image reference/,
    },
  ],
};

/** Groups whose cases after the first run in this process (test/support/cli-in-process.ts). */
const IN_PROCESS = new Set(["fixture (its --out)", "fixture info", "k6-operator"]);

describe.concurrent("bad files and paths: exit 2, one line naming the input, no stack, nothing written", () => {
  for (const [command, cases] of Object.entries(CASES)) {
    for (const [i, c] of cases.entries()) {
      const label = `${command}: ${c.args}${c.env ? ` (${Object.entries(c.env).map(([k, v]) => `${k}=${v}`)})` : ""}`;
      it(label, async () => {
        const scratch = mkdtempSync(join(root, "case-"));
        const fill = (a: string) =>
          a
            .replace(/^IN\//, `${inputs}/`)
            .replace(/^OUT\//, `${scratch}/`)
            .replace(/^PID$/, String(process.pid));
        const args = c.args.split(" ").filter(Boolean).map(fill);
        const env = Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, fill(v)]));
        const inProcess = IN_PROCESS.has(command) && i > 0 && !c.env && !c.args.includes("fifo");
        const r = inProcess ? await runMain(args) : await runCli(args, 60_000, env, scratch);
        const lines = r.stderr.trimEnd().split("\n");
        expect(r.code, `stderr: ${r.stderr}`).toBe(2);
        expect(lines, r.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(c.says);
        expect(lines[0]).not.toMatch(/\s+at .*(\(.*:\d+:\d+\)|:\d+:\d+$)/); // no stack trace
        expect(listing(scratch), "files left behind").toEqual([]);
        expect(statSync(join(inputs, "null")).isCharacterDevice()).toBe(true);
        rmSync(scratch, { recursive: true, force: true });
      });
    }
  }
});

describe("inputs", () => {
  it("no case wrote into the inputs (fixtures, run folders, FIFOs) — checked after the walk", () => {
    expect(listing(inputs)).toEqual(inputsBefore);
  });
});
