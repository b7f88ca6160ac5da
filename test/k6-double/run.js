// TEST AID, not k6: a tiny runner for our scenario files under the k6 double, for CI where k6
// cannot be installed. Real runs use k6. It mimics the parts of `k6 run` the scenarios rely on:
//   node --import ./test/k6-double/register.js test/k6-double/run.js run [-e K=V]... [--quiet]
//        [--execution-segment FROM:TO [--execution-segment-sequence ...]] SCRIPT
// init per VU (a fresh instance of the script and of every module it imports), setup (its data
// passed to the VUs through JSON, as k6 does), per-vu-iterations / shared-iterations /
// constant-arrival-rate (each scheduled iteration on its own VU, started at its time), an iteration
// ends when its promise settles and its sockets and timers are done, teardown, thresholds (checked
// before the run: an unknown metric or an aggregation the metric's type lacks is a config error),
// handleSummary (files written, not their directories, as k6; "stdout" printed). An execution
// segment runs only that share of the VUs, numbered as in the whole test, as k6-operator's runners
// do. Exit codes as k6: 99 thresholds failed, 104 invalid config, 107 script error, 0 otherwise;
// and 1 with "would hang k6" where real k6 would never exit.
// Not modelled: all VUs share one Node event loop (k6 gives each VU its own).
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { state, whenIdle } from "./modules/state.js";
import { buildSummaryMetrics, ConfigError, checkThresholds } from "./summary.js";

const EXIT_WOULD_HANG = 1;
const EXIT_THRESHOLDS = 99;
const EXIT_CONFIG = 104;
const EXIT_SCRIPT = 107;
/** k6 warns past this many time series (metric name + tag set). */
const SERIES_WARNING = 100000;

function parseArgs(argv) {
  const args = [...argv];
  if (args[0] === "run") args.shift();
  const env = {};
  let script = null;
  let quiet = false;
  let segment = null;
  while (args.length > 0) {
    const a = args.shift();
    if (a === "-e" || a === "--env") {
      const kv = args.shift() ?? "";
      const i = kv.indexOf("=");
      if (i <= 0) throw new Error(`k6 double: ${a} expects KEY=VALUE (got ${JSON.stringify(kv)})`);
      env[kv.slice(0, i)] = kv.slice(i + 1);
    } else if (a === "-q" || a === "--quiet" || a === "--no-color") quiet = true;
    else if (a === "--execution-segment") segment = parseSegment(args.shift() ?? "");
    else if (a === "--execution-segment-sequence") args.shift();
    else if (a.startsWith("-")) throw new Error(`k6 double: unsupported flag ${a}`);
    else if (script === null) script = a;
    else throw new Error(`k6 double: unexpected argument ${a}`);
  }
  if (!script) throw new Error("k6 double: usage: run [-e KEY=VALUE]... SCRIPT");
  return { env, script, quiet, segment };
}

function fraction(text) {
  const [n, d = "1"] = text.split("/");
  const v = Number(n) / Number(d);
  if (!Number.isFinite(v) || v < 0 || v > 1) throw new Error(`k6 double: bad execution segment bound ${text}`);
  return v;
}

/** "FROM:TO" with fractions ("0:1/2", "1/2:1"). */
function parseSegment(text) {
  const [from, to] = text.split(":");
  if (from === undefined || to === undefined)
    throw new Error(`k6 double: --execution-segment expects FROM:TO (got ${text})`);
  const seg = { from: fraction(from), to: fraction(to) };
  if (seg.from >= seg.to) throw new Error(`k6 double: empty execution segment ${text}`);
  return seg;
}

function durationMs(text, fallback) {
  if (text === undefined) return fallback;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(text));
  if (!m) throw new Error(`k6 double: unsupported duration ${text}`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2]];
}

/** Waits until the iteration's sockets and timers are done, as k6 does before the next iteration. */
async function drain(timeoutMs) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`iteration still has ${state().pending.size} open sockets/timers after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([whenIdle(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The VUs this instance runs: all of them, or its execution segment's share, each with its id in
 * the whole test (1-based) and its first iterationInTest.
 */
function plan(options, segment) {
  const scenarios = options.scenarios ?? {
    default: { executor: "per-vu-iterations", vus: options.vus ?? 1, iterations: options.iterations ?? 1 },
  };
  const entries = Object.entries(scenarios);
  if (entries.length !== 1) throw new ConfigError("k6 double: exactly one scenario is supported");
  const [name, sc] = entries[0];
  const vus = sc.vus ?? 1;
  const iterations = sc.iterations ?? 1;
  const maxMs = durationMs(sc.maxDuration, 600_000);
  if (sc.executor === "constant-arrival-rate") return arrivalPlan(name, sc, segment, maxMs);
  let perVu;
  if (sc.executor === "per-vu-iterations") perVu = Array(vus).fill(iterations);
  else if (sc.executor === "shared-iterations" && !segment) {
    perVu = Array.from({ length: vus }, (_, i) => Math.floor(iterations / vus) + (i < iterations % vus ? 1 : 0));
  } else throw new ConfigError(`k6 double: unsupported executor ${sc.executor}${segment ? " with a segment" : ""}`);
  const first = segment ? Math.round(segment.from * vus) : 0;
  const last = segment ? Math.round(segment.to * vus) : vus;
  const mine = [];
  for (let i = first; i < last; i++) {
    mine.push({ idInTest: i + 1, iterations: perVu[i], firstIteration: perVu.slice(0, i).reduce((a, b) => a + b, 0) });
  }
  return { name, vus: mine, maxMs };
}

/**
 * constant-arrival-rate: rate iterations per timeUnit for duration, iteration i at i * timeUnit / rate
 * (its iterationInTest is i across the whole test; a segment runs its share of the schedule). Each
 * iteration gets its own VU here; k6 reuses free VUs up to maxVUs and drops iterations beyond them.
 */
function arrivalPlan(name, sc, segment, maxMs) {
  const unit = durationMs(sc.timeUnit, 1000);
  const total = Math.floor((sc.rate * durationMs(sc.duration, 0)) / unit + 1e-9);
  if (!(total >= 1)) throw new ConfigError("k6 double: constant-arrival-rate needs rate and duration");
  if (sc.maxVUs !== undefined && sc.maxVUs < total) {
    throw new ConfigError(`k6 double: maxVUs ${sc.maxVUs} below the ${total} scheduled iterations is not modelled`);
  }
  const first = segment ? Math.round(segment.from * total) : 0;
  const last = segment ? Math.round(segment.to * total) : total;
  const mine = [];
  for (let i = first; i < last; i++) {
    mine.push({ idInTest: i + 1, iterations: 1, firstIteration: i, startMs: (i * unit) / sc.rate });
  }
  const grace = durationMs(sc.gracefulStop, 30_000);
  return { name, vus: mine, maxMs: Math.min(maxMs, durationMs(sc.duration, 0) + grace) };
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

function truthy(text) {
  return text === "true" || text === "1";
}

/** Distinct (metric, tag set) pairs among the samples. */
function seriesCount(samples) {
  const seen = new Set();
  for (const x of samples) seen.add(`${x.metric}${JSON.stringify(Object.entries(x.tags).sort())}`);
  return seen.size;
}

async function main() {
  const { env, script, quiet, segment } = parseArgs(process.argv.slice(2));
  globalThis.__ENV = Object.freeze({ ...process.env, ...env });
  const url = pathToFileURL(resolve(script)).href;
  const s = state();
  const log = (line) => {
    if (!quiet) process.stderr.write(`${line}\n`);
  };
  s.fatal = (reason) => {
    process.stderr.write(`k6 double: ${reason}\n`);
    process.exit(EXIT_WOULD_HANG);
  };

  let mod;
  try {
    s.stage = "init";
    globalThis.__VU = 0;
    mod = await import(`${url}?vu=0`);
  } catch (e) {
    process.stderr.write(`k6 double: script error in init: ${e?.stack ?? e}\n`);
    return EXIT_SCRIPT;
  }
  const options = mod.options ?? {};
  let p;
  try {
    p = plan(options, segment);
    checkThresholds(s, options);
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    return e instanceof ConfigError ? EXIT_CONFIG : EXIT_SCRIPT;
  }
  s.scenario = p.name;
  const started = Date.now();
  let setupData;
  try {
    // k6 hands setup's result to every VU as JSON: functions, undefined fields and class instances do not survive.
    const raw = mod.setup ? await mod.setup() : undefined;
    setupData = raw === undefined ? undefined : JSON.parse(JSON.stringify(raw));
  } catch (e) {
    process.stderr.write(`k6 double: script error in setup: ${e?.stack ?? e}\n`);
    return EXIT_SCRIPT;
  }

  const vuModules = [];
  for (const vu of p.vus) {
    s.stage = "init";
    globalThis.__VU = vu.idInTest;
    vuModules.push(await import(`${url}?vu=${vu.idInTest}`));
  }
  s.stage = "vu";
  let counter = 0;
  const vuStart = Date.now();
  await Promise.all(
    vuModules.map(async (vuMod, index) => {
      const vu = p.vus[index];
      // An arrival-rate iteration starts at its scheduled time.
      const wait = (vu.startMs ?? 0) - (Date.now() - vuStart);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (let i = 0; i < vu.iterations; i++) {
        s.vu = vu.idInTest;
        s.iterationInScenario = i;
        s.iterationInTest = vu.firstIteration + i;
        counter++;
        globalThis.__VU = vu.idInTest;
        globalThis.__ITER = i;
        try {
          await vuMod.default(setupData);
          await drain(p.maxMs);
        } catch (e) {
          process.stderr.write(`k6 double: iteration error: ${e?.stack ?? e}\n`);
        }
      }
    }),
  );
  if (mod.teardown) await mod.teardown(setupData);

  s.stage = "summary";
  const series = seriesCount(s.samples);
  if (series > SERIES_WARNING) {
    process.stderr.write(
      `k6 double: the test generated ${series} time series, above k6's warning level of ${SERIES_WARNING}\n`,
    );
  }
  const { metrics, thresholdsFailed } = buildSummaryMetrics(s, options, Date.now() - started);
  const classic = {
    metrics,
    options: { summaryTrendStats: options.summaryTrendStats ?? ["avg", "min", "med", "max", "p(90)", "p(95)"] },
    state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: Date.now() - started },
    root_group: { name: "", path: "", groups: [], checks: [] },
    setup_data: setupData,
  };
  // k6 reads this from its own environment (not -e). The double does not reproduce the new format;
  // it hands over a stand-in without the classic keys, which is what a script must not misread.
  const data = truthy(process.env.K6_NEW_MACHINE_READABLE_SUMMARY)
    ? { version: "k6-double stand-in for the new machine-readable summary", results: { custom: metrics } }
    : classic;
  if (mod.handleSummary) {
    const outputs = await mod.handleSummary(data);
    for (const [key, text] of Object.entries(outputs ?? {})) {
      if (key === "stdout") process.stdout.write(text);
      else if (key === "stderr") process.stderr.write(text);
      else {
        try {
          writeSummaryFile(resolve(key), text);
        } catch (e) {
          // k6 logs this and carries on; the file is simply missing.
          process.stderr.write(`k6 double: failed to handle the end-of-test summary: ${e.message}\n`);
        }
      }
    }
  } else {
    process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
  }
  log(`k6 double: ${counter} iterations; ${series} time series; thresholds ${thresholdsFailed ? "FAILED" : "ok"}`);
  return thresholdsFailed ? EXIT_THRESHOLDS : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`k6 double: ${e?.stack ?? e}\n`);
    process.exitCode = e instanceof ConfigError ? EXIT_CONFIG : EXIT_SCRIPT;
  },
);
