// `bench` flags: the one table from which its yargs options, --help, docs/cli.md and validation come.
import { FIXTURE_CACHE_TEXT } from "../../fixtures/options.js";
import {
  COMPLETION_MARKER,
  DEFAULT_ACK_DELAY_MS,
  DEFAULT_HOLD_MS,
  LATENCY_CASES,
  MAX_DELAY_MS,
  MAX_SESSION_TIMEOUT_MS,
  PROBE_TAG,
  SUBSCRIBE_TAG,
  SUBSCRIBE_TEMPLATE,
  THREAD_SUBSCRIBE_TAG,
  THREAD_SUBSCRIBE_TEMPLATE,
  URL_PATH,
} from "../../scenarios/lib/protocol.js";
import { DEFAULT_STORM_TIMEOUT_MS } from "../bench/run/config.js";
import { DRIVERS } from "../driver/clients.js";
import { DEFAULT_RSS_INTERVAL_MS, FAST_RSS_HEAP_INTERVAL_MS, MIN_HEAP_INTERVAL_MS } from "../sampler/lane-defaults.js";
import { DELIVERIES } from "../server-process/bundled.js";
import { DEFAULT_BINDING_TIMEOUT_MS, DEFAULT_SEED_WINDOW } from "./binding.js";
import { GUARD_OPTIONS } from "./guard.js";
import { SUMMARY_OPTIONS } from "./output.js";
import { REFS_OPTIONS } from "./refs.js";
import type { CommandSpec } from "./spec.js";

/**
 * --quick: the values that replace these flags' defaults when --quick is given and the flag is not
 * (plus the default fixtures' size: legacy replay chunks hold 512 coalesced items, so > 512 projects
 * keep resume-many at 4 chunks).
 */
export const QUICK = { trials: 1, "memory-trials": 1, "script-bytes": [1024], aa: false, projects: 600 } as const;
/** The flags whose defaults --quick replaces (QUICK's, and --memory-sequential's and --latency-sequential's 0). */
export const QUICK_FLAGS: readonly string[] = [
  "trials",
  "memory-trials",
  "script-bytes",
  "aa",
  "memory-sequential",
  "latency-sequential",
];
/** The default fixtures' projects and post-cursor events (the reference study's). */
export const DEFAULT_PROJECTS = 1000;
export const DEFAULT_EVENTS = 1000;

const MATRIX = "Matrix:";
const MEMORY = "Memory cells:";
const LEAK = "Leak detection:";
const STORM = "Reconnect storm:";
const TARGETS = "Targets:";
const PROTOCOL = "Protocol (foreign targets):";
const REFS = "Versions by git ref:";
const GUARD = "Regression guard:";
const OUTPUT = "Output and run control:";

export const BENCH_OPTIONS = {
  cases: {
    type: "enum-list",
    choices: LATENCY_CASES,
    default: LATENCY_CASES,
    defaultText: "all (without the thread cases for --target and --ref runs)",
    describe: "latency cases",
    group: MATRIX,
  },
  trials: {
    type: "int",
    min: 1,
    max: 1000,
    default: 8,
    defaultText: "8 (1 with --quick)",
    describe: "trials per variant and latency case, one per round (a round runs every variant once, in rotated order)",
    group: MATRIX,
  },
  "latency-sequential": {
    type: "number",
    min: 0,
    max: 86_400,
    default: 120,
    defaultText: "120 (0 with --quick)",
    describe:
      "after the planned latency rounds, add rounds to cases whose headline latency metrics are not yet DIFFERENT or SAME, judged at 8, 12 and 16 pairs at 98.3% each (a case whose answer is out of reach by 16 pairs stops UNKNOWN), for up to this many seconds (0: off)",
    group: MATRIX,
  },
  "ack-delay-ms": {
    type: "int",
    min: 0,
    max: MAX_DELAY_MS,
    default: DEFAULT_ACK_DELAY_MS,
    describe: "client ACK delay per chunk, ms",
    group: MATRIX,
  },
  latency: {
    type: "boolean",
    default: true,
    describe: "run the latency matrix (--no-latency to skip)",
    group: MATRIX,
  },
  memory: { type: "boolean", default: true, describe: "run the memory matrix (--no-memory to skip)", group: MATRIX },
  quick: {
    type: "boolean",
    default: false,
    describe: "a smaller run: 600 projects, 1 trial, 1 KiB memory cells only (still 1,000 events)",
    group: MATRIX,
  },
  aa: {
    type: "boolean",
    default: true,
    defaultText: "true (false with --quick)",
    describe:
      "A/A control: a second copy of the baseline runs in every round, so each cell gets a noise band (--no-aa to skip)",
    group: MATRIX,
  },
  "auto-sample": {
    type: "number",
    min: 1,
    max: 86_400,
    describe:
      "after the planned rounds, keep adding rounds to guarded cells whose interval straddles the ceiling, for up to this many seconds",
    group: MATRIX,
  },
  "memory-trials": {
    type: "int",
    min: 1,
    max: 1000,
    default: 3,
    defaultText: "3 (1 with --quick)",
    describe: "trials per variant and memory cell, one per round, each on a fresh server (variants in rotated order)",
    group: MEMORY,
  },
  "memory-sequential": {
    type: "number",
    min: 0,
    max: 86_400,
    default: 600,
    defaultText: "600 (0 with --quick)",
    describe:
      "after the planned memory rounds, add rounds to cells whose peak heap and peak RSS are not yet DIFFERENT or SAME, judged at 8, 12 and 16 pairs at 98.3% each (from 6 pairs a cell whose ratios all lie within the practical floor stops as SAME; a cell whose answer is out of reach by 16 pairs stops UNKNOWN), for up to this many seconds (0: off)",
    group: MEMORY,
  },
  pin: {
    type: "boolean",
    default: true,
    describe:
      "with 2 or more CPUs, pin each memory trial's target to one CPU and the harness and clients to the others (taskset; --no-pin to let them float)",
    group: MEMORY,
  },
  "hold-ms": {
    type: "int",
    min: 0,
    max: MAX_DELAY_MS,
    default: DEFAULT_HOLD_MS,
    describe: "hold the completion chunk this long, then close, ms",
    group: MEMORY,
  },
  clients: { type: "int-list", min: 1, max: 1000, default: [1, 4], describe: "concurrent clients", group: MEMORY },
  "script-bytes": {
    type: "int-list",
    min: 64,
    max: 1_048_576,
    default: [1024, 8192],
    defaultText: "1024,8192 (1024 with --quick)",
    describe: "script sizes of the memory cells' fixtures, bytes",
    group: MEMORY,
  },
  "sample-interval-ms": {
    type: "int",
    min: 1,
    max: 1_000,
    default: DEFAULT_RSS_INTERVAL_MS,
    describe: "RSS lane's sampling interval, ms (read from /proc in a process of its own)",
    group: MEMORY,
  },
  "heap-interval-ms": {
    type: "int",
    min: MIN_HEAP_INTERVAL_MS,
    max: 1_000,
    defaultText: `--sample-interval-ms; ${FAST_RSS_HEAP_INTERVAL_MS} when that is under ${MIN_HEAP_INTERVAL_MS}`,
    describe: `heap lane's interval, ms (each request goes through the target's inspector and costs the harness about 0.5 ms of CPU, so beside a sub-${MIN_HEAP_INTERVAL_MS} ms RSS lane it defaults to ${FAST_RSS_HEAP_INTERVAL_MS}, where it costs about 0.5% of a core)`,
    group: MEMORY,
  },
  attribute: {
    type: "boolean",
    default: false,
    describe:
      "after the measured rounds, two extra unmeasured trials per memory cell and variant with V8's sampling heap profiler: the live profile at the heap peak and everything allocated over the window; the top allocation sites go to the report, the raw profiles to profiles/*.heapprofile",
    group: MEMORY,
  },
  "attribute-interval-bytes": {
    type: "int",
    min: 512,
    max: 16_777_216,
    default: 32_768,
    describe: "--attribute's sampling interval: average bytes allocated between two samples",
    group: MEMORY,
  },
  "leak-cycles": {
    type: "int",
    min: 10,
    max: 100_000,
    describe:
      "leak detection: per variant, one server and this many measured reconnect cycles (after the warm-up), post-GC heap, RSS and open descriptors after each; heap slope per cycle with a 95% interval",
    group: LEAK,
  },
  "leak-only": {
    type: "boolean",
    default: false,
    describe: "run only the leak cycles (no latency or memory matrix); needs --leak-cycles",
    group: LEAK,
  },
  "leak-warmup": {
    type: "int",
    min: 0,
    max: 10_000,
    default: 20,
    describe:
      "leak cycles run first and left out of the slope (JIT code, caches and pools fill up: the bundled server's heap settles over about 20)",
    group: LEAK,
  },
  "leak-threshold-kib": {
    type: "number",
    min: 0,
    max: 1_048_576,
    default: 16,
    describe: "verdict leak when the heap slope's 95% lower bound exceeds this, KiB per cycle",
    group: LEAK,
  },
  storm: {
    type: "int-list",
    min: 1,
    max: 100_000,
    describe:
      "reconnect storm cells: per variant and script size, a fresh server and N clients resuming at once, sampled like a memory cell (refused when it would exceed the descriptor or backlog limits)",
    group: STORM,
  },
  "storm-ramp-ms": {
    type: "int",
    min: 0,
    max: 600_000,
    default: 0,
    describe: "spread a storm's connects evenly over this many ms (0: all at once)",
    group: STORM,
  },
  "storm-resume-ratio": {
    type: "number",
    min: 0,
    max: 1,
    default: 1,
    describe: "share of storm clients that resume from the cursor; the rest take a cold snapshot",
    group: STORM,
  },
  "storm-timeout-ms": {
    type: "int",
    min: 100,
    max: MAX_SESSION_TIMEOUT_MS,
    default: DEFAULT_STORM_TIMEOUT_MS,
    describe:
      "a storm client that has not completed this long after it connects fails as a timeout (a storm's sessions share the server, so they get longer than --trial-timeout-ms), ms",
    group: STORM,
  },
  "storm-trials": {
    type: "int",
    min: 1,
    max: 100,
    default: 1,
    describe: "trials per variant and storm cell, one per round, each on a fresh server (variants in rotated order)",
    group: STORM,
  },
  variants: {
    type: "enum-list",
    choices: DELIVERIES,
    default: DELIVERIES,
    describe: "bundled delivery strategies, first is the baseline",
    group: TARGETS,
  },
  "server-arg": {
    type: "string",
    repeatable: true,
    describe:
      "one word of the bundled server's command line, repeatable, in the = form: --server-arg=--backlog=1024 (`serve --help` lists the flags; the harness sets --db, --host, --port, --delivery, --token, --token-env and --exit-with-parent itself)",
    group: TARGETS,
  },
  "gc-flags": {
    type: "string",
    describe:
      "V8/Node flags for the bundled server's node, e.g. --predictable-gc-schedule for a deterministic GC schedule: less variance in peak heap, but it measures a server configured unlike production (off by default)",
    group: TARGETS,
  },
  target: {
    type: "string",
    repeatable: true,
    describe:
      "foreign target NAME=COMMAND, repeatable, first is the baseline; {port}, {db} (a copy of the fixture) and {state} (a copy of the seeded state, with --binding) are filled in",
    group: TARGETS,
  },
  binding: {
    type: "string",
    describe:
      "seed each foreign server from the fixture through its own API before the trials: a shipped binding's name (t3code) or a module's path (docs/bindings.md); its start command takes {state}",
    group: TARGETS,
  },
  "binding-option": {
    type: "string",
    repeatable: true,
    describe:
      "KEY=VALUE handed to the binding, repeatable; a key the binding does not declare is refused (a shipped binding's page lists its keys)",
    group: TARGETS,
  },
  "binding-timeout-ms": {
    type: "int",
    min: 0,
    max: 3_600_000,
    default: DEFAULT_BINDING_TIMEOUT_MS,
    describe:
      "each call of the binding (loading its module, prepare, each write, summarize) that has not settled by then stops the seed, ms (0: no limit); also the default timeout of the commands prepare runs",
    group: TARGETS,
  },
  "seed-window": {
    type: "int",
    min: 1,
    max: 256,
    default: DEFAULT_SEED_WINDOW,
    describe:
      "writes of the seed in flight at once (1: one at a time); an entity's writes and the resume cursor keep the fixture's order; a binding that declares order \"strict\" gets 1",
    group: TARGETS,
  },
  "start-timeout-ms": {
    type: "int",
    min: 100,
    max: 600_000,
    default: 20_000,
    describe: "a target that is not ready by then is an error, ms",
    group: TARGETS,
  },
  "trial-timeout-ms": {
    type: "int",
    min: 100,
    max: MAX_SESSION_TIMEOUT_MS,
    // Not DEFAULT_SESSION_TIMEOUT_MS: the bench's catch-ups run under load (memory and storm cells of
    // large fixtures), so it waits twice the client's own default.
    default: 60_000,
    describe: "a session that has not completed by then fails, ms",
    group: TARGETS,
  },
  "ready-line": {
    type: "string",
    describe:
      "a foreign target is ready when a line of its stdout or stderr matches this regex (instead of its port accepting); a (?<port>\\d+) group names the port",
    group: TARGETS,
  },
  "stop-grace-ms": {
    type: "int",
    min: 0,
    max: 600_000,
    default: 5000,
    describe: "a stopped target gets SIGTERM, then SIGKILL after this grace (its cleanup runs in between), ms",
    group: TARGETS,
  },
  driver: { type: "enum", choices: DRIVERS, default: "node", describe: "what runs the clients", group: TARGETS },
  ...REFS_OPTIONS(REFS),
  "url-path": { type: "string", default: URL_PATH, describe: "WebSocket path of a target", group: PROTOCOL },
  cursor: {
    type: "int",
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    defaultText: "the fixture's cursor",
    describe:
      "afterSequence of the resume-many case and of memory resumes, for a server whose state is not the fixture",
    group: PROTOCOL,
  },
  latest: {
    type: "int",
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    defaultText: "the fixture's latest sequence",
    describe: "the server's latest sequence: resume-none resumes after it, resume-one after it minus 1",
    group: PROTOCOL,
  },

  token: {
    type: "string",
    secret: true,
    defaultText: "$CATCHUP_TOKEN, else the bundled server's dev token",
    describe: "bearer token (never written: results and logs keep a sha256 prefix)",
    group: PROTOCOL,
  },
  header: {
    type: "string",
    repeatable: true,
    describe: "extra header of the WebSocket upgrade, NAME: VALUE, repeatable (values are never written)",
    group: PROTOCOL,
  },
  "token-file": {
    type: "string",
    describe: "read the bearer token from this file (keeps it off the command line); not with --token",
    group: PROTOCOL,
  },
  "subscribe-tag": { type: "string", default: SUBSCRIBE_TAG, describe: "streaming RPC tag", group: PROTOCOL },
  "subscribe-payload": {
    type: "string",
    default: SUBSCRIBE_TEMPLATE,
    describe: "JSON template of the subscribe payload, {after} standing for afterSequence",
    group: PROTOCOL,
  },
  "thread-subscribe-tag": {
    type: "string",
    default: THREAD_SUBSCRIBE_TAG,
    describe: "streaming RPC tag of the thread cases",
    group: PROTOCOL,
  },
  "thread-subscribe-payload": {
    type: "string",
    default: THREAD_SUBSCRIBE_TEMPLATE,
    describe:
      "JSON template of the thread cases' subscribe payload, {thread} standing for the fixture's measured thread id and {after} for afterSequence",
    group: PROTOCOL,
  },
  completion: {
    type: "string",
    default: `${COMPLETION_MARKER.field}=${COMPLETION_MARKER.value}`,
    describe: "FIELD=VALUE of the stream value marking completion, or exit",
    group: PROTOCOL,
  },
  "probe-tag": { type: "string", default: PROBE_TAG, describe: "unary probe RPC tag", group: PROTOCOL },
  "probe-payload": { type: "json", default: "{}", describe: "probe payload", group: PROTOCOL },
  ...GUARD_OPTIONS(GUARD),
  ...SUMMARY_OPTIONS(OUTPUT),
  out: { type: "string", defaultText: "reports/<timestamp>", describe: "run directory", group: OUTPUT },
  config: {
    type: "string",
    defaultText: "catchup-bench.config.json in the working directory, when there is one",
    describe:
      "read bench options from this JSON file (its keys are these flags without dashes; a flag given here replaces its key, --quick also the keys it presets; keys and flags that exclude each other are refused; relative paths in it resolve from its folder)",
    group: OUTPUT,
  },
  fixture: {
    type: "string",
    defaultText: `${FIXTURE_CACHE_TEXT}/p1000-s1024-e1000.sqlite, built if missing`,
    describe: "fixture for the latency matrix",
    group: OUTPUT,
  },
  "fixtures-dir": {
    type: "string",
    defaultText: FIXTURE_CACHE_TEXT,
    describe: "where default fixtures are found or built",
    group: OUTPUT,
  },
  seed: {
    type: "int",
    min: 0,
    max: 4_294_967_295,
    default: 1,
    describe: "seed of the default fixtures",
    group: OUTPUT,
  },
  "fail-fast": { type: "boolean", default: false, describe: "stop at the first failed trial", group: OUTPUT },
  "disturbed-cores": {
    type: "number",
    min: 0.01,
    max: 1024,
    default: 0.25,
    describe:
      "a round of a cell is disturbed when other processes' CPU plus steal, averaged over its trials, reach this many cores (read from /proc between trials)",
    group: OUTPUT,
  },
  "wait-quiet": {
    type: "number",
    min: 1,
    max: 3600,
    describe:
      "before each round, wait until a 1 s window shows less than --disturbed-cores, for at most this many seconds (the waits are reported)",
    group: OUTPUT,
  },
  history: {
    type: "string",
    defaultText: ".catchup-bench/history.sqlite in the repository, when it exists",
    describe:
      "the history store (`catchup-bench history`: a SQLite file or a postgres:// URL): report.md gains a History section, this run against the series on main",
    group: OUTPUT,
  },
  "memory-check": {
    type: "boolean",
    default: true,
    describe:
      "before starting, refuse memory cells estimated not to fit the server's heap or this machine, and warn of such storm cells connecting all at once (--no-memory-check runs the cells anyway and skips the warning)",
    group: OUTPUT,
  },
} as const satisfies CommandSpec["options"];

/** How the config file and the flags combine: docs/cli.md says it under the bench flags. */
const CONFIG_FILE_NOTES = [
  "**The config file.** `bench` reads `catchup-bench.config.json` in the working directory (or the file",
  "`--config` names). Its keys are the flags above without their dashes, its values typed as JSON:",
  '`"trials": 3`, `"memory": false` for `--no-memory`, an array for a list or a repeatable flag, and a',
  'payload template as text or as an object (`"subscribe-payload": {"since": "{after}"}`, the string',
  '`"{after}"` standing for the sequence as a number). Every key reaches the run as its flag would;',
  "`catchup-bench.schema.json` in the package lets an editor complete them.",
  "The precedence, the same for every key:",
  "",
  "- A flag given on the command line replaces the file's key of the same name (a repeatable flag's whole",
  "  list: `--target` on the command line drops the file's `target`). The file replaces the defaults.",
  "- `--quick` on the command line also replaces the file's `trials`, `memory-trials`, `script-bytes`, `aa`",
  '  and `memory-sequential`; `"quick": true` in the file gives way to those keys set in the file or as',
  "  flags, as `--quick --trials 3` runs 3 trials.",
  "- A key and a flag that exclude each other (`token` and `--token-file`, `target` and `--repo`, `binding`",
  "  and `--cursor`, and every other pair the flags refuse) are refused as the two flags are, naming the",
  '  file and its key: `key "target" in /path/to/catchup-bench.config.json`. A bad value in the file is',
  "  named the same way. The file is refused whole: nothing runs.",
  "- Relative paths in the file resolve from the file's folder; on the command line, from the working",
  "  directory.",
].join("\n");

export const BENCH_COMMAND = {
  command: "bench",
  describe: "Measure reconnect latency and server memory, baseline vs candidate; write reports/<run>/",
  options: BENCH_OPTIONS,
  notes: CONFIG_FILE_NOTES,
} satisfies CommandSpec;
