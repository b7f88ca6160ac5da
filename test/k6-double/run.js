// TEST AID, not k6: a tiny runner for our scenario files under the k6 double, for CI where k6
// cannot be installed. Real runs use k6. It mimics the parts of `k6 run` and `k6 archive` the
// scenarios rely on:
//   node --import ./test/k6-double/register.js test/k6-double/run.js run [-e K=V]... [--quiet]
//        [--execution-segment FROM:TO [--execution-segment-sequence 0,1/4,...]] SCRIPT|ARCHIVE.tar
//   node --import ./test/k6-double/register.js test/k6-double/run.js archive [-e K=V]... SCRIPT -O OUT.tar
// - options: the script's export evaluated once (or an archive's, frozen when it was made), then the
//   K6_* environment applied over them as k6 does (options.js); scenarios validated with k6's own
//   rules (executors.js), thresholds checked before the run; `archive` validates the same way
//   (internal/cmd/archive.go:19 loads and validates the test) and writes k6's layout (archive.js);
// - init per VU (a fresh instance of the script and of every module it imports), setup once per
//   instance: a k6-operator runner is an instance, and k6-operator calls /v1/setup only for cloud
//   runs (grafana/k6-operator internal/controller/k6_start.go:97-98), so every runner runs setup();
//   its data passed to the VUs through JSON, as k6 does;
// - per-vu-iterations, shared-iterations, constant-vus and constant-arrival-rate (each arrival on a
//   free VU, up to maxVUs, else dropped as k6 drops it); an iteration ends when its promise settles
//   and its sockets and timers are done, or when a socket listener throws;
// - an execution segment runs that instance's striped share: VU ids and iteration numbers in the
//   whole test as k6 numbers them (segments.js);
// - teardown, thresholds (tag-filtered submetrics), handleSummary (files written, not their
//   directories, as k6; "stdout" printed; a handleSummary that throws is logged and the run goes on,
//   internal/cmd/run.go:258-264 at v2.2.0). Exit codes as k6: 99 thresholds failed, 104 invalid
//   config (a scenario's exec not among the exports: internal/cmd/config.go:357-362; a bad
//   summaryTrendStats entry), 107 script error (no exported function: internal/js/bundle.go:237-239,
//   internal/cmd/test_load.go:179-181), 108 exec.test.abort(), 109 a Go panic in k6, 0 otherwise;
//   and 1 with "would hang k6" where real k6 would never exit.
// Not modelled: all VUs share one Node event loop (k6 gives each VU its own); after abort() no
// teardown or handleSummary runs (k6 runs handleSummary).
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { readArchive, unpackArchive, writeArchive } from "./archive.js";
import { scenarioPlan, scenariosOf, validateScenarios } from "./executors.js";
import { installGlobals } from "./globals.js";
import { state, whenIdle } from "./modules/state.js";
import { consolidateOptions, runtimeOptions } from "./options.js";
import { executionTuple } from "./segments.js";
import { buildSummaryMetrics, ConfigError, checkThresholds, checkTrendStats } from "./summary.js";

const EXIT_WOULD_HANG = 1;
const EXIT_THRESHOLDS = 99;
const EXIT_CONFIG = 104;
const EXIT_SCRIPT = 107;
const EXIT_ABORTED = 108;
/** k6 warns past this many time series (metric name + tag set). */
const SERIES_WARNING = 100000;
const ENV_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/; // internal/cmd/runtime_options.go:20

function parseArgs(argv) {
  const args = [...argv];
  const command = args[0] === "archive" ? "archive" : "run";
  if (args[0] === "run" || args[0] === "archive") args.shift();
  const env = {};
  let script = null;
  let quiet = false;
  let segment = null;
  let sequence = null;
  let archiveOut = "archive.tar";
  while (args.length > 0) {
    const a = args.shift();
    if (a === "-e" || a === "--env") {
      const kv = args.shift() ?? "";
      const i = kv.indexOf("=");
      const key = i > 0 ? kv.slice(0, i) : kv;
      if (!ENV_NAME.test(key)) throw new ConfigError(`invalid environment variable name '${key}'`);
      env[key] = i > 0 ? kv.slice(i + 1) : "";
    } else if (a === "-q" || a === "--quiet" || a === "--no-color") quiet = true;
    else if (a === "--execution-segment") segment = args.shift() ?? "";
    else if (a === "--execution-segment-sequence") sequence = args.shift() ?? "";
    else if (command === "archive" && (a === "-O" || a === "--archive-out")) archiveOut = args.shift() ?? "";
    else if (a.startsWith("-")) throw new Error(`k6 double: unsupported flag ${a}`);
    else if (script === null) script = a;
    else throw new Error(`k6 double: unexpected argument ${a}`);
  }
  if (!script) throw new Error("k6 double: usage: run|archive [-e KEY=VALUE]... SCRIPT");
  return { command, env, script, quiet, segment, sequence, archiveOut };
}

/** Writes a summary file as k6 does: never creating its directory. */
function writeSummaryFile(path, text) {
  if (!existsSync(dirname(path))) {
    throw new Error(`open ${path}: no such file or directory`);
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Distinct (metric, tag set) pairs among the samples. */
function seriesCount(samples) {
  const seen = new Set();
  for (const x of samples) seen.add(`${x.metric}${JSON.stringify(Object.entries(x.tags).sort())}`);
  return seen.size;
}

/** The script and every module it imports by relative path (what `k6 archive` packs). */
function moduleFiles(path, seen = new Set()) {
  if (seen.has(path)) return seen;
  seen.add(path);
  const source = readFileSync(path, "utf8");
  for (const m of source.matchAll(/\b(?:import|export)\s[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    moduleFiles(resolve(dirname(path), m[1]), seen);
  }
  return seen;
}

/**
 * k6 runs a scenario's exec (default "default"): it must be an exported function (config.go:357-362),
 * and a script must export at least one function (bundle.go:237-239, a script error).
 */
function checkExports(mod, scenarios) {
  if (!Object.values(mod).some((v) => typeof v === "function")) throw new Error("no exported functions in script");
  const missing = Object.entries(scenarios)
    .map(([name, sc]) => [name, sc.exec ?? "default"])
    .filter(([, exec]) => typeof mod[exec] !== "function");
  if (missing.length === 0) return;
  throw new ConfigError(
    [
      "There were problems with the specified script configuration:",
      ...missing.map(([name, exec]) => `\t- executor ${name}: function '${exec}' not found in exports`),
    ].join("\n"),
  );
}

/** Sleeps until `ms` after `t0`, or not at all. */
function until(t0, ms) {
  const wait = t0 + ms - Date.now();
  return wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve();
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const s = state();
  const log = (line) => {
    if (!a.quiet) process.stderr.write(`${line}\n`);
  };
  s.fatal = (reason) => {
    process.stderr.write(`k6 double: ${reason}\n`);
    process.exit(EXIT_WOULD_HANG);
  };
  const runtime = runtimeOptions(process.env);
  const includeSystemEnv = runtime.includeSystemEnv ?? a.command === "run";

  // An archive carries its script, modules, options and -e environment; the run's own env is laid over.
  let scriptPath = resolve(a.script);
  let frozen = null;
  let archiveEnv = {};
  let unpacked = null;
  if (a.command === "run" && a.script.endsWith(".tar")) {
    const archive = readArchive(readFileSync(a.script));
    unpacked = mkdtempSync(join(tmpdir(), "k6-double-archive-"));
    scriptPath = unpackArchive(archive, unpacked);
    frozen = archive.metadata.options ?? {};
    archiveEnv = archive.metadata.env ?? {};
  }
  process.on("exit", () => {
    if (unpacked) rmSync(unpacked, { recursive: true, force: true });
  });
  globalThis.__ENV = Object.freeze({ ...archiveEnv, ...(includeSystemEnv ? process.env : {}), ...a.env });
  const url = pathToFileURL(scriptPath).href;
  await installGlobals(dirname(scriptPath));
  s.abort = (reason) => {
    process.stderr.write(`k6 double: test aborted${reason === undefined || reason === null ? "" : `: ${reason}`}\n`);
    process.exit(EXIT_ABORTED);
  };

  let mod;
  try {
    s.stage = "init";
    globalThis.__VU = 0;
    mod = await import(`${url}?vu=0`);
  } catch (e) {
    process.stderr.write(`k6 double: script error in init: ${e?.stack ?? e}\n`);
    return e?.exitCode ?? EXIT_SCRIPT;
  }
  // k6 reads the options once, from the first init (or from the archive), and applies K6_* over them.
  const options = consolidateOptions(frozen ?? mod.options ?? {}, process.env);
  s.options = options;
  let plan;
  try {
    const scenarios = scenariosOf(options);
    validateScenarios(scenarios);
    checkExports(mod, scenarios);
    checkTrendStats(options.summaryTrendStats);
    const entries = Object.entries(scenarios);
    if (entries.length !== 1) throw new ConfigError("k6 double: exactly one scenario is supported");
    if (!runtime.noThresholds) checkThresholds(s, options);
    const tuple = executionTuple(a.segment, a.sequence);
    plan = scenarioPlan(entries[0][0], entries[0][1], tuple);
    plan.tuple = tuple;
    plan.exec = entries[0][1].exec ?? "default";
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    return e instanceof ConfigError ? EXIT_CONFIG : EXIT_SCRIPT;
  }

  if (a.command === "archive") {
    const bytes = writeArchive({ options, env: a.env, mainPath: scriptPath, files: [...moduleFiles(scriptPath)] });
    const tmp = `${a.archiveOut}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, a.archiveOut);
    log(`k6 double: archive ${a.archiveOut}: ${bytes.length} bytes`);
    return 0;
  }

  const started = Date.now();
  let setupData;
  try {
    // k6 hands setup's result to every VU as JSON: functions, undefined fields and class instances do not survive.
    s.stage = "setup";
    const raw = mod.setup ? await mod.setup() : undefined;
    setupData = raw === undefined ? undefined : JSON.parse(JSON.stringify(raw));
  } catch (e) {
    process.stderr.write(`k6 double: script error in setup: ${e?.stack ?? e}\n`);
    return EXIT_SCRIPT;
  }

  const counters = await runScenario(plan, url, setupData);
  s.stage = "teardown";
  if (mod.teardown) await mod.teardown(setupData);

  s.stage = "summary";
  const series = seriesCount(s.samples);
  if (series > SERIES_WARNING) {
    process.stderr.write(
      `k6 double: the test generated ${series} time series, above k6's warning level of ${SERIES_WARNING}\n`,
    );
  }
  const { metrics, thresholdsFailed } = buildSummaryMetrics(s, options, Date.now() - started, runtime.noThresholds);
  const classic = {
    metrics,
    options: { summaryTrendStats: options.summaryTrendStats ?? ["avg", "min", "med", "max", "p(90)", "p(95)"] },
    state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: Date.now() - started },
    root_group: { name: "", path: "", groups: [], checks: [] },
    setup_data: setupData,
  };
  // The double does not reproduce the new format; it hands over a stand-in without the classic
  // keys, which is what a script must not misread.
  const data = runtime.newMachineReadableSummary
    ? { version: "k6-double stand-in for the new machine-readable summary", results: { custom: metrics } }
    : classic;
  if (!runtime.summaryEnabled) {
    log("k6 double: the end-of-test summary is disabled: handleSummary not called");
  } else if (mod.handleSummary) {
    await handleSummary(mod, data);
  } else {
    process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
  }
  const failed = thresholdsFailed && !runtime.noThresholds;
  log(
    `k6 double: ${counters.iterations} iterations, ${counters.dropped} dropped; ${series} time series; thresholds ${failed ? "FAILED" : "ok"}`,
  );
  return failed ? EXIT_THRESHOLDS : 0;
}

/** Calls handleSummary and writes its outputs; k6 logs any failure and carries on (run.go:258-264). */
async function handleSummary(mod, data) {
  const failed = (e) =>
    process.stderr.write(`k6 double: failed to handle the end-of-test summary: ${e?.message ?? e}\n`);
  let outputs;
  try {
    outputs = await mod.handleSummary(data);
  } catch (e) {
    return failed(e);
  }
  for (const [key, text] of Object.entries(outputs ?? {})) {
    if (key === "stdout") process.stdout.write(text);
    else if (key === "stderr") process.stderr.write(text);
    else {
      try {
        writeSummaryFile(resolve(key), text);
      } catch (e) {
        failed(e); // the file is simply missing
      }
    }
  }
}

/**
 * Runs this instance's share of the scenario. VUs are initialised as k6 does (ids striped over the
 * whole test); each iteration runs in its own context and takes the next iteration number.
 */
async function runScenario(plan, url, setupData) {
  const s = state();
  const vuIds = plan.tuple.indexes(plan.maxVUs ?? plan.vus).map((i) => i + 1);
  const iterationNumbers = [...(plan.iterationIndexes ?? [])];
  let scaled = 0;
  const counters = { iterations: 0, dropped: 0 };
  const vus = [];
  const newVu = async () => {
    const local = vus.length + 1;
    s.stage = "init";
    globalThis.__VU = local;
    const vu = { idInTest: vuIds[local - 1], local, mod: await import(`${url}?vu=${local}`), done: 0, busy: false };
    vus.push(vu);
    return vu;
  };
  for (let i = 0; i < plan.vus; i++) await newVu();
  s.stage = "vu";
  const t0 = Date.now();
  const hardStopMs = plan.maxDurationMs + plan.gracefulStopMs;

  const iterate = async (vu) => {
    // iterationInTest: the next striped number, taken as the iteration starts (base_executor.go:45-51).
    const iterationInTest = iterationNumbers.length
      ? iterationNumbers.shift()
      : (plan.tuple.indexes(scaled + 1).at(-1) ?? scaled);
    const ctx = {
      vu: vu.idInTest,
      vuInInstance: vu.local,
      iterationInTest,
      iterationInInstance: scaled++,
      iterationInScenario: vu.done++,
      scenario: plan.name,
      executor: plan.executor,
      pending: new Set(),
      idleWaiters: [],
      fail: () => {},
    };
    counters.iterations++;
    const failed = new Promise((_, reject) => {
      ctx.fail = (e) => reject(e);
    });
    let timer;
    const stop = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`iteration interrupted at the scenario's end (${hardStopMs} ms incl. gracefulStop)`)),
        Math.max(0, t0 + hardStopMs - Date.now()),
      );
    });
    try {
      await s.context.run(ctx, async () => {
        globalThis.__VU = vu.local;
        globalThis.__ITER = ctx.iterationInScenario;
        await Promise.race([
          (async () => {
            await vu.mod[plan.exec](setupData);
            await whenIdle(ctx);
          })(),
          failed,
          stop,
        ]);
      });
    } catch (e) {
      process.stderr.write(`k6 double: iteration error: ${e?.stack ?? e}\n`);
    } finally {
      clearTimeout(timer);
    }
  };

  if (plan.executor === "constant-arrival-rate") {
    // Each arrival at its time on a free VU; more VUs up to maxVUs; none free: dropped.
    const running = [];
    let warned = false;
    for (const arrival of plan.arrivals) {
      await until(t0, arrival.atMs);
      let vu = vus.find((v) => !v.busy);
      if (!vu && vus.length < plan.maxVUs) vu = await newVu();
      if (!vu) {
        // A dropped arrival takes no iteration number: k6 numbers iterations as they start.
        counters.dropped++;
        if (!warned) {
          process.stderr.write(
            `k6 double: Insufficient VUs, reached ${plan.maxVUs} active VUs and cannot initialize more\n`,
          );
          warned = true;
        }
        continue;
      }
      vu.busy = true;
      running.push(
        iterate(vu).finally(() => {
          vu.busy = false;
        }),
      );
    }
    await Promise.all(running);
    return counters;
  }
  const remaining = { shared: plan.executor === "shared-iterations" ? iterationNumbers.length : 0 };
  await Promise.all(
    vus.map(async (vu) => {
      for (;;) {
        if (plan.executor === "per-vu-iterations" && vu.done >= plan.perVu) return;
        if (plan.executor === "shared-iterations" && remaining.shared-- <= 0) return;
        if (plan.executor === "constant-vus" && Date.now() - t0 >= plan.durationMs) return;
        if (Date.now() - t0 >= plan.maxDurationMs) return;
        await iterate(vu);
      }
    }),
  );
  return counters;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`${e instanceof ConfigError ? "" : "k6 double: "}${e?.message ?? e}\n`);
    process.exitCode = e instanceof ConfigError ? EXIT_CONFIG : EXIT_SCRIPT;
  },
);
