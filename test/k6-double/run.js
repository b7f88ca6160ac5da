// TEST AID, not k6: a tiny runner for our scenario files under the k6 double, for CI where k6
// cannot be installed. Real runs use k6. It mimics the parts of `k6 run` the scenarios rely on:
//   node --import ./test/k6-double/register.js test/k6-double/run.js run [-e K=V]... [--quiet] SCRIPT
// init per VU (a fresh module instance), setup, per-vu-iterations / shared-iterations, an iteration
// ends when its promise settles and its sockets and timers are done, teardown, thresholds,
// handleSummary (files written, "stdout" printed). Exit codes as k6: 99 thresholds failed,
// 107 script error, 0 otherwise.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { state, whenIdle } from "./modules/state.js";
import { buildSummaryMetrics } from "./summary.js";

const EXIT_THRESHOLDS = 99;
const EXIT_SCRIPT = 107;

function parseArgs(argv) {
  const args = [...argv];
  if (args[0] === "run") args.shift();
  const env = {};
  let script = null;
  let quiet = false;
  while (args.length > 0) {
    const a = args.shift();
    if (a === "-e" || a === "--env") {
      const kv = args.shift() ?? "";
      const i = kv.indexOf("=");
      if (i <= 0) throw new Error(`k6 double: ${a} expects KEY=VALUE (got ${JSON.stringify(kv)})`);
      env[kv.slice(0, i)] = kv.slice(i + 1);
    } else if (a === "-q" || a === "--quiet" || a === "--no-color") quiet = true;
    else if (a.startsWith("-")) throw new Error(`k6 double: unsupported flag ${a}`);
    else if (script === null) script = a;
    else throw new Error(`k6 double: unexpected argument ${a}`);
  }
  if (!script) throw new Error("k6 double: usage: run [-e KEY=VALUE]... SCRIPT");
  return { env, script, quiet };
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

function plan(options) {
  const scenarios = options.scenarios ?? {
    default: { executor: "per-vu-iterations", vus: options.vus ?? 1, iterations: options.iterations ?? 1 },
  };
  const entries = Object.entries(scenarios);
  if (entries.length !== 1) throw new Error("k6 double: exactly one scenario is supported");
  const [name, sc] = entries[0];
  const vus = sc.vus ?? 1;
  const iterations = sc.iterations ?? 1;
  if (sc.executor === "per-vu-iterations")
    return { name, vus, perVu: Array(vus).fill(iterations), maxMs: durationMs(sc.maxDuration, 600_000) };
  if (sc.executor === "shared-iterations") {
    const perVu = Array.from({ length: vus }, (_, i) => Math.floor(iterations / vus) + (i < iterations % vus ? 1 : 0));
    return { name, vus, perVu, maxMs: durationMs(sc.maxDuration, 600_000) };
  }
  throw new Error(`k6 double: unsupported executor ${sc.executor}`);
}

function writeAtomically(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

async function main() {
  const { env, script, quiet } = parseArgs(process.argv.slice(2));
  globalThis.__ENV = Object.freeze({ ...process.env, ...env });
  const url = pathToFileURL(resolve(script)).href;
  const s = state();
  const log = (line) => {
    if (!quiet) process.stderr.write(`${line}\n`);
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
  const p = plan(options);
  s.scenario = p.name;
  const started = Date.now();
  const setupData = mod.setup ? await mod.setup() : undefined;

  const vuModules = [];
  for (let vu = 1; vu <= p.vus; vu++) {
    s.stage = "init";
    globalThis.__VU = vu;
    vuModules.push(await import(`${url}?vu=${vu}`));
  }
  s.stage = "vu";
  let counter = 0;
  await Promise.all(
    vuModules.map(async (vuMod, index) => {
      for (let i = 0; i < p.perVu[index]; i++) {
        s.vu = index + 1;
        s.iterationInScenario = i;
        s.iterationInTest = counter++;
        globalThis.__VU = index + 1;
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
  const { metrics, thresholdsFailed } = buildSummaryMetrics(s, options, Date.now() - started);
  const data = {
    metrics,
    options: { summaryTrendStats: options.summaryTrendStats ?? ["avg", "min", "med", "max", "p(90)", "p(95)"] },
    state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: Date.now() - started },
    root_group: { name: "", path: "", groups: [], checks: [] },
    setup_data: setupData,
  };
  if (mod.handleSummary) {
    const outputs = await mod.handleSummary(data);
    for (const [key, text] of Object.entries(outputs ?? {})) {
      if (key === "stdout") process.stdout.write(text);
      else if (key === "stderr") process.stderr.write(text);
      else writeAtomically(resolve(key), text);
    }
  } else {
    process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
  }
  log(`k6 double: ${counter} iterations; thresholds ${thresholdsFailed ? "FAILED" : "ok"}`);
  return thresholdsFailed ? EXIT_THRESHOLDS : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`k6 double: ${e?.stack ?? e}\n`);
    process.exitCode = EXIT_SCRIPT;
  },
);
