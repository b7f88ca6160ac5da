// Every key catchup-bench.config.json accepts reaches the run: for each property of the published
// schema, a config file setting it gives the same request (the typed BenchConfig the CLI builds, or
// the cache clean-up) as the flag typed on the command line, and a different one from a run without
// it. The command line goes through the CLI's own yargs options, the file through the same loader
// `bench` uses; nothing is run.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import yargs from "yargs";
import { BENCH_COMMAND } from "../../scripts/options/bench.js";
import { type BenchRequest, benchRequest } from "../../scripts/options/bench-request.js";
import { applyOptions, skipHelpCache } from "../../scripts/options/yargs.js";
import { UsageError } from "../../scripts/util/usage.js";

const SCHEMA = fileURLToPath(new URL("../../catchup-bench.schema.json", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "catchup-config-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tokenFile = join(dir, "token");
writeFileSync(tokenFile, "secret-from-file\n");

/** A key's setting, as the file holds it and as the command line types it. */
interface Setting {
  file: Record<string, unknown>;
  argv: string[];
}
const set = (file: Record<string, unknown>, argv: string[]): Setting => ({ file, argv });

const TWO_TARGETS = set({ target: ["a=node a.js --port {port}", "b=node b.js --port {port}"] }, [
  "--target",
  "a=node a.js --port {port}",
  "--target",
  "b=node b.js --port {port}",
]);
const STATE_TARGETS = set(
  { target: ["a=node a.js --port {port} --dir {state}", "b=node b.js --port {port} --dir {state}"] },
  ["--target", "a=node a.js --port {port} --dir {state}", "--target", "b=node b.js --port {port} --dir {state}"],
);
const REPO = set({ repo: "/srv/repo" }, ["--repo", "/srv/repo"]);
const REFS = set({ ref: ["base=main", "head=HEAD"] }, ["--ref", "base=main", "--ref", "head=HEAD"]);
const START = set({ start: "node s.js --port {port}" }, ["--start", "node s.js --port {port}"]);
const BY_REF = [REPO, REFS, START];
/** The candidate alone, as --swap-from runs take it. */
const ONE_REF = set({ ref: ["head=HEAD"] }, ["--ref", "head=HEAD"]);
const CEILING = set({ ceiling: 1.03 }, ["--ceiling", "1.03"]);
const BINDING = set({ binding: "t3code" }, ["--binding", "t3code"]);

/**
 * Per schema key: its setting (not the default), and what it needs beside it to be accepted (the
 * companions are given the same way in both runs, and alone in the run without the key).
 */
const SAMPLES: Record<string, { key: Setting; with?: Setting[] }> = {
  cases: { key: set({ cases: ["snapshot"] }, ["--cases", "snapshot"]) },
  trials: { key: set({ trials: 3 }, ["--trials", "3"]) },
  "latency-sequential": { key: set({ "latency-sequential": 0 }, ["--latency-sequential", "0"]) },
  "ack-delay-ms": { key: set({ "ack-delay-ms": 50 }, ["--ack-delay-ms", "50"]) },
  latency: { key: set({ latency: false }, ["--no-latency"]) },
  memory: { key: set({ memory: false }, ["--no-memory"]) },
  quick: { key: set({ quick: true }, ["--quick"]) },
  aa: { key: set({ aa: false }, ["--no-aa"]) },
  "auto-sample": { key: set({ "auto-sample": 60 }, ["--auto-sample", "60"]), with: [CEILING] },
  "memory-trials": { key: set({ "memory-trials": 5 }, ["--memory-trials", "5"]) },
  "memory-sequential": { key: set({ "memory-sequential": 0 }, ["--memory-sequential", "0"]) },
  pin: { key: set({ pin: false }, ["--no-pin"]) },
  "hold-ms": { key: set({ "hold-ms": 10 }, ["--hold-ms", "10"]) },
  clients: { key: set({ clients: [2, 8] }, ["--clients", "2,8"]) },
  "script-bytes": { key: set({ "script-bytes": 2048 }, ["--script-bytes", "2048"]) },
  "sample-interval-ms": { key: set({ "sample-interval-ms": 20 }, ["--sample-interval-ms", "20"]) },
  "heap-interval-ms": { key: set({ "heap-interval-ms": 50 }, ["--heap-interval-ms", "50"]) },
  attribute: { key: set({ attribute: true }, ["--attribute"]) },
  "attribute-interval-bytes": {
    key: set({ "attribute-interval-bytes": 4096 }, ["--attribute-interval-bytes", "4096"]),
    with: [set({ attribute: true }, ["--attribute"])],
  },
  "leak-cycles": { key: set({ "leak-cycles": 30 }, ["--leak-cycles", "30"]) },
  "leak-only": {
    key: set({ "leak-only": true }, ["--leak-only"]),
    with: [set({ "leak-cycles": 30 }, ["--leak-cycles", "30"])],
  },
  "leak-warmup": { key: set({ "leak-warmup": 5 }, ["--leak-warmup", "5"]) },
  "leak-threshold-kib": { key: set({ "leak-threshold-kib": 1e-7 }, ["--leak-threshold-kib", "0.0000001"]) },
  storm: { key: set({ storm: [10, 20] }, ["--storm", "10,20"]) },
  "storm-ramp-ms": { key: set({ "storm-ramp-ms": 100 }, ["--storm-ramp-ms", "100"]) },
  "storm-resume-ratio": { key: set({ "storm-resume-ratio": 1e-7 }, ["--storm-resume-ratio", "1e-7"]) },
  "storm-timeout-ms": { key: set({ "storm-timeout-ms": 1000 }, ["--storm-timeout-ms", "1000"]) },
  "storm-trials": { key: set({ "storm-trials": 2 }, ["--storm-trials", "2"]) },
  variants: { key: set({ variants: ["batched", "legacy"] }, ["--variants", "batched,legacy"]) },
  "server-arg": { key: set({ "server-arg": ["--backlog=64"] }, ["--server-arg=--backlog=64"]) },
  "gc-flags": { key: set({ "gc-flags": "--predictable-gc-schedule" }, ["--gc-flags=--predictable-gc-schedule"]) },
  target: { key: TWO_TARGETS },
  binding: { key: BINDING, with: [STATE_TARGETS] },
  "binding-option": {
    key: set({ "binding-option": ["node=/usr/bin/node"] }, ["--binding-option", "node=/usr/bin/node"]),
    with: [STATE_TARGETS, BINDING],
  },
  "binding-timeout-ms": {
    key: set({ "binding-timeout-ms": 5000 }, ["--binding-timeout-ms", "5000"]),
    with: [STATE_TARGETS, BINDING],
  },
  "seed-window": {
    key: set({ "seed-window": 4 }, ["--seed-window", "4"]),
    with: [STATE_TARGETS, BINDING],
  },
  history: { key: set({ history: "/srv/history.sqlite" }, ["--history", "/srv/history.sqlite"]) },
  "start-timeout-ms": { key: set({ "start-timeout-ms": 1000 }, ["--start-timeout-ms", "1000"]) },
  "trial-timeout-ms": { key: set({ "trial-timeout-ms": 1000 }, ["--trial-timeout-ms", "1000"]) },
  "ready-line": { key: set({ "ready-line": "listening" }, ["--ready-line", "listening"]), with: [TWO_TARGETS] },
  "stop-grace-ms": { key: set({ "stop-grace-ms": 100 }, ["--stop-grace-ms", "100"]) },
  driver: { key: set({ driver: "k6" }, ["--driver", "k6"]) },
  repo: { key: REPO, with: [REFS, START] },
  ref: { key: REFS, with: [REPO, START] },
  build: { key: set({ build: "npm ci" }, ["--build", "npm ci"]), with: BY_REF },
  start: { key: START, with: [REPO, REFS] },
  "build-timeout-ms": {
    key: set({ "build-timeout-ms": 5000 }, ["--build-timeout-ms", "5000"]),
    with: [...BY_REF, set({ build: "npm ci" }, ["--build", "npm ci"])],
  },
  "keep-checkouts": { key: set({ "keep-checkouts": 2 }, ["--keep-checkouts", "2"]), with: BY_REF },
  "checkout-cache-gb": { key: set({ "checkout-cache-gb": 1e-3 }, ["--checkout-cache-gb", "0.001"]), with: BY_REF },
  "clean-checkouts": {
    key: set({ "clean-checkouts": true }, ["--clean-checkouts"]),
    with: [REPO],
  },
  "swap-from": {
    key: set({ "swap-from": "main", swap: ["src/a.ts"] }, ["--swap-from", "main", "--swap", "src/a.ts"]),
    with: [REPO, ONE_REF, START],
  },
  swap: {
    key: set({ swap: ["src/b.ts"] }, ["--swap", "src/b.ts"]),
    with: [REPO, ONE_REF, START, set({ "swap-from": "main" }, ["--swap-from", "main"])],
  },
  "url-path": { key: set({ "url-path": "/rpc" }, ["--url-path", "/rpc"]) },
  cursor: { key: set({ cursor: 5 }, ["--cursor", "5"]) },
  latest: { key: set({ latest: 5000 }, ["--latest", "5000"]) },
  token: { key: set({ token: "tok-123" }, ["--token", "tok-123"]) },
  header: { key: set({ header: ["X-Team: a"] }, ["--header", "X-Team: a"]) },
  "token-file": { key: set({ "token-file": tokenFile }, ["--token-file", tokenFile]) },
  "subscribe-tag": { key: set({ "subscribe-tag": "shell.subscribe" }, ["--subscribe-tag", "shell.subscribe"]) },
  "subscribe-payload": {
    key: set({ "subscribe-payload": '{"after":{after}}' }, ["--subscribe-payload", '{"after":{after}}']),
  },
  "thread-subscribe-tag": {
    key: set({ "thread-subscribe-tag": "thread.subscribe" }, ["--thread-subscribe-tag", "thread.subscribe"]),
  },
  "thread-subscribe-payload": {
    key: set({ "thread-subscribe-payload": '{"t":"{thread}","a":{after}}' }, [
      "--thread-subscribe-payload",
      '{"t":"{thread}","a":{after}}',
    ]),
  },
  completion: { key: set({ completion: "exit" }, ["--completion", "exit"]) },
  "probe-tag": { key: set({ "probe-tag": "server.ping" }, ["--probe-tag", "server.ping"]) },
  "probe-payload": { key: set({ "probe-payload": { a: 1 } }, ["--probe-payload", '{"a":1}']) },
  ceiling: { key: CEILING },
  guard: { key: set({ guard: ["completionMs"] }, ["--guard", "completionMs"]), with: [CEILING] },
  "guard-confidence": { key: set({ "guard-confidence": true }, ["--guard-confidence"]), with: [CEILING] },
  "allow-missing": { key: set({ "allow-missing": true }, ["--allow-missing"]), with: [CEILING] },
  "guard-min-pairs": { key: set({ "guard-min-pairs": 4 }, ["--guard-min-pairs", "4"]), with: [CEILING] },
  "min-effect": { key: set({ "min-effect": "2%" }, ["--min-effect", "2%"]) },
  json: { key: set({ json: true }, ["--json"]) },
  "summary-md": { key: set({ "summary-md": "/srv/summary.md" }, ["--summary-md", "/srv/summary.md"]) },
  out: { key: set({ out: "/srv/out" }, ["--out", "/srv/out"]) },
  fixture: { key: set({ fixture: "/srv/f.sqlite" }, ["--fixture", "/srv/f.sqlite"]) },
  "fixtures-dir": { key: set({ "fixtures-dir": "/srv/fx" }, ["--fixtures-dir", "/srv/fx"]) },
  seed: { key: set({ seed: 7 }, ["--seed", "7"]) },
  "fail-fast": { key: set({ "fail-fast": true }, ["--fail-fast"]) },
  "disturbed-cores": { key: set({ "disturbed-cores": 0.5 }, ["--disturbed-cores", "0.5"]) },
  "wait-quiet": { key: set({ "wait-quiet": 5 }, ["--wait-quiet", "5"]) },
  "memory-check": { key: set({ "memory-check": false }, ["--no-memory-check"]) },
};

/** The CLI's argv for `bench WORDS`, parsed by the bench command's own yargs options. */
async function parse(words: string[]): Promise<Record<string, unknown>> {
  let seen: Record<string, unknown> = {};
  const parser = yargs(["bench", ...words])
    .parserConfiguration({ "camel-case-expansion": false })
    .strict()
    .command({
      command: "bench",
      describe: "",
      builder: (y) => applyOptions(y, BENCH_COMMAND),
      handler: (a) => {
        seen = a;
      },
    });
  skipHelpCache(parser);
  await parser.parseAsync();
  return seen;
}

let files = 0;
/**
 * The request of `bench WORDS` with `json` as catchup-bench.config.json (none when null), or the
 * usage error it is refused with.
 */
async function request(
  words: string[],
  json: Record<string, unknown> | null,
): Promise<BenchRequest | { refused: string }> {
  const cwd = join(dir, `run-${++files}`);
  const argv = await parse(words);
  mkdirSync(cwd);
  if (json) writeFileSync(join(cwd, "catchup-bench.config.json"), JSON.stringify(json));
  return outcome(argv, cwd);
}

/** The request, without where its options came from (recorded beside them, not an option itself), or its refusal. */
function outcome(argv: Record<string, unknown>, cwd: string): BenchRequest | { refused: string } {
  try {
    const { origin: _, ...r } = benchRequest(argv, cwd, {});
    return "config" in r ? { config: { ...r.config, run: { ...r.config.run, configFile: null } } } : r;
  } catch (e) {
    if (e instanceof UsageError) return { refused: e.message };
    throw e;
  }
}

const merge = (settings: Setting[]): Setting => ({
  file: Object.assign({}, ...settings.map((s) => s.file)),
  argv: settings.flatMap((s) => s.argv),
});

describe("every key of catchup-bench.schema.json", () => {
  const keys = Object.keys(
    (JSON.parse(readFileSync(SCHEMA, "utf8")) as { properties: Record<string, unknown> }).properties,
  ).filter((k) => k !== "$schema");

  it("has a sample here (add one for a new flag)", () => {
    expect(keys.filter((k) => !(k in SAMPLES))).toEqual([]);
  });

  it.each(keys)("%s takes effect from the file, as the flag does", async (key) => {
    const sample = SAMPLES[key];
    if (!sample) return;
    const companions = merge(sample.with ?? []);
    const both = merge([...(sample.with ?? []), sample.key]);
    const fromFlags = await request(both.argv, null);
    const fromFile = await request([], both.file);
    const without = await request([], sample.with ? companions.file : null);
    expect((fromFlags as { refused?: string }).refused).toBeUndefined();
    expect(fromFile).toEqual(fromFlags);
    expect(fromFile).not.toEqual(without);
  });
});

describe("a key from the file beside a flag", () => {
  /** Each sample with what it needs, as the file holds it and as yargs hands the flags over. */
  const settings = async () =>
    Promise.all(
      Object.entries(SAMPLES).map(async ([key, s]) => {
        const both = merge([...(s.with ?? []), s.key]);
        return { key, file: both.file, argv: await parse(both.argv) };
      }),
    );

  it("is refused as the two flags are, naming the file and its key, and otherwise combines as flags do", async () => {
    const all = await settings();
    const cwd = join(dir, "pairs");
    mkdirSync(cwd);
    let refusals = 0;
    for (const a of all) {
      const file = join(dir, `pair-${a.key}.json`);
      writeFileSync(file, JSON.stringify(a.file));
      const fileKeys = Object.keys(a.file);
      for (const b of all) {
        if (b === a || fileKeys.some((k) => b.argv[k] !== undefined)) continue;
        // --quick on the command line replaces the file's trials (checked below): not as two flags.
        if (b.argv.quick === true) continue;
        const asFlags = outcome({ ...a.argv, ...b.argv }, cwd);
        const mixed = outcome({ ...b.argv, config: file }, cwd);
        const what = `${a.key} in the file, ${b.key} as a flag`;
        if (!("refused" in asFlags)) {
          expect(mixed, what).toEqual(asFlags);
          continue;
        }
        expect(mixed, what).toHaveProperty("refused");
        const message = (mixed as { refused: string }).refused;
        // Put back as flags, the file's keys give the message the two flags get.
        const asTyped = message
          .replaceAll(`": false in ${file}`, '": false')
          .replaceAll(` in ${file}`, "")
          .replace(/key "([a-z0-9-]+)": false/g, "--no-$1")
          .replace(/key "([a-z0-9-]+)"/g, "--$1");
        expect(asTyped, what).toBe(asFlags.refused);
        const aboutTheFile = fileKeys.some((k) => new RegExp(`--(no-)?${k}\\b(?!-)`).test(asFlags.refused));
        if (aboutTheFile) {
          refusals++;
          expect(message, what).toContain(file);
        }
      }
    }
    // The clashes the issue names are among them.
    expect(refusals).toBeGreaterThan(20);
  });
});

describe("the file's keys in messages, and the precedence", () => {
  const inDir = (name: string, json: Record<string, unknown>) => {
    const cwd = join(dir, name);
    mkdirSync(cwd);
    writeFileSync(join(cwd, "catchup-bench.config.json"), JSON.stringify(json));
    return { cwd, file: join(cwd, "catchup-bench.config.json") };
  };
  const refused = async (json: Record<string, unknown>, words: string[]) => {
    const { cwd, file } = inDir(`named-${++files}`, json);
    const r = outcome(await parse(words), cwd);
    return { message: (r as { refused?: string }).refused, file };
  };

  it("names the file and key of the clashes the flags refuse", async () => {
    let r = await refused({ token: "abc" }, ["--token-file", tokenFile]);
    expect(r.message).toBe(`key "token" in ${r.file} and --token-file cannot be combined (give one)`);
    r = await refused(TWO_TARGETS.file, [...REPO.argv, ...REFS.argv, ...START.argv]);
    expect(r.message).toBe(
      `--repo and key "target" in ${r.file} cannot be combined (--ref names the variants of a --repo run)`,
    );
    r = await refused({ ...STATE_TARGETS.file, binding: "t3code" }, ["--cursor", "5"]);
    expect(r.message).toBe(`--cursor goes without key "binding" in ${r.file}: the seed gives the cursors`);
  });

  it("names the file and key of a value refused beyond its type", async () => {
    const r = await refused({ "min-effect": "1 percent" }, []);
    expect(r.message).toMatch(new RegExp(`^key "min-effect" in ${r.file} must be a comma-separated list of sizes`));
    const t = await refused({ trials: 0 }, []);
    expect(t.message).toBe(`key "trials" in ${t.file} must be an integer from 1 to 1000 (got 0)`);
  });

  it("takes --quick given as a flag over the file's trials, and the file's trials over its own quick", async () => {
    const config = async (json: Record<string, unknown>, words: string[]) => {
      const r = outcome(await parse(words), inDir(`quick-${++files}`, json).cwd);
      if (!("config" in r)) throw new Error(JSON.stringify(r));
      return r.config;
    };
    const flagQuick = await config({ trials: 5, "memory-trials": 4, aa: true }, ["--quick"]);
    expect([flagQuick.latency.trials, flagQuick.memory.trials, flagQuick.targets.aa]).toEqual([1, 1, false]);
    const bothFlags = await config({ trials: 5 }, ["--quick", "--trials", "3"]);
    expect(bothFlags.latency.trials).toBe(3);
    const fileQuick = await config({ quick: true, trials: 5 }, []);
    expect([fileQuick.latency.trials, fileQuick.memory.trials]).toEqual([5, 1]);
    const flagTrials = await config({ quick: true }, ["--trials", "4"]);
    expect(flagTrials.latency.trials).toBe(4);
  });
});
