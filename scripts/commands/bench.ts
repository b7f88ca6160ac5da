// `catchup-bench bench`: the latency and memory matrix against the bundled server (legacy baseline,
// batched candidate) or foreign targets. A thin layer over resolveConfig() and runBench().
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Argv, CommandModule } from "yargs";
import { FixtureError } from "../../fixtures/meta.js";
import { resolveConfig } from "../bench/config.js";
import { DriverError } from "../bench/drivers.js";
import { runBench } from "../bench/run.js";
import { TargetError } from "../bench/target.js";
import { relativeToRoot } from "../report/model.js";
import { UsageError, writableDirFlag } from "../usage.js";

/** The package root (dist/scripts/commands/ -> ../../..): default fixtures and reports live there. */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const STRING_FLAGS: Record<string, string> = {
  cases: "latency cases: snapshot,resume-none,resume-one,resume-many",
  trials: "trials per latency case (default 3; 1 with --quick)",
  "memory-trials": "trials per memory cell, each on a fresh server (default 1)",
  "ack-delay-ms": "client ACK delay per chunk, ms (default 100)",
  "hold-ms": "memory cells: hold the completion chunk this long, then close (default 100)",
  clients: "memory cells: concurrent clients, list (default 1,4)",
  "script-bytes": "memory cells: script sizes in bytes, list (default 1024,8192; 1024 with --quick)",
  "sample-interval-ms": "heap/RSS sampling interval, ms (default 10)",
  out: "run directory (default reports/<timestamp>)",
  fixture: "fixture for the latency matrix (default: fixtures/data/p1000-s1024-e1000.sqlite, built if missing)",
  "fixtures-dir": "where default fixtures are found or built (default fixtures/data/)",
  driver: "node | k6 (default node)",
  seed: "seed of the default fixtures (default 1)",
  variants: "bundled delivery strategies, first is the baseline (default legacy,batched)",
  target: "foreign target NAME=COMMAND, repeatable, first is the baseline; {port} and {db} are filled in",
  "url-path": "WebSocket path of a target (default /ws)",
  token: "bearer token (default the bundled server's dev token)",
  "subscribe-tag": "streaming RPC tag (default orchestration.subscribeShell)",
  "subscribe-payload":
    'JSON template, {after} = afterSequence (default {"afterSequence":{after},"requestCompletionMarker":true})',
  completion: "FIELD=VALUE marking completion, or exit (default kind=synchronized)",
  "probe-tag": "unary probe RPC tag (default server.getConfig)",
  "probe-payload": "probe payload JSON (default {})",
  "trial-timeout-ms": "a session that has not completed by then fails (default 60000)",
  "start-timeout-ms": "a target that is not ready by then is an error (default 20000)",
  ceiling: "regression guard: fail (exit 1) when a guarded median paired ratio exceeds this (e.g. 1.03)",
  guard: "metrics the guard judges (default completionMs,peakHeapBytes)",
};

const BOOLEAN_FLAGS: Record<string, string> = {
  memory: "run the memory matrix (--no-memory to skip)",
  latency: "run the latency matrix (--no-latency to skip)",
  quick: "a smaller run: 600 projects, 1 trial, 1 KiB memory cells only (still 1,000 events)",
  aa: "also run the baseline against itself (A/A) to measure noise",
  "fail-fast": "stop at the first failed trial",
};

export const benchCommand: CommandModule = {
  command: "bench",
  describe: "Measure reconnect latency and server memory, baseline vs candidate; write reports/<run>/",
  builder: (y: Argv) => {
    let b = y;
    for (const [flag, describe] of Object.entries(STRING_FLAGS)) b = b.option(flag, { type: "string", describe });
    for (const [flag, describe] of Object.entries(BOOLEAN_FLAGS)) b = b.option(flag, { type: "boolean", describe });
    return b;
  },
  handler: async (argv) => {
    const config = resolveConfig(argv as Record<string, unknown>);
    // Before any fixture or target work: an unwritable --out is a usage error, not a crash later.
    if (config.out) writableDirFlag("out", config.out);
    try {
      const outcome = await runBench(config, { root: ROOT, stdout: process.stdout, handleSignals: true });
      // Below the project root the path is shown relative to it, as in the report.
      const shown = relativeToRoot(join(outcome.runDir, "results.json"), ROOT);
      process.stdout.write(`${outcome.markdown.trimEnd()}\n\nResults: ${shown}\n`);
      if (outcome.guard) process.stdout.write(`${outcome.guard.lines.join("\n")}\n`);
      if (outcome.stopReason === "SIGINT" || outcome.stopReason === "SIGTERM") process.exitCode = 130;
      else if (outcome.interrupted || (outcome.guard && !outcome.guard.pass)) process.exitCode = 1;
      if (outcome.stopReason?.startsWith("--fail-fast")) process.stderr.write(`catchup-bench: ${outcome.stopReason}\n`);
    } catch (e) {
      if (e instanceof FixtureError) throw new UsageError(e.message);
      if (e instanceof TargetError || e instanceof DriverError) {
        process.stderr.write(`catchup-bench: ${e.message}\n`);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
  },
};
