// Test support for the k6 tests: run a script under the k6 double (a TEST AID: real runs use k6) with
// extra k6 flags, the process environment k6 would inherit, and a stderr listener to act on events.
import { isAbsolute, join } from "node:path";
import { type K6SessionsOptions, type K6SessionsResult, runSessionsK6 } from "../../scripts/driver/k6.js";
import { runNode } from "../support/child.js";
import { ROOT } from "../support/server.js";

/** The scripts under test; CATCHUP_SCENARIOS_DIR points at another copy (to see a test fail against an old version). */
export const SCENARIOS_DIR = process.env.CATCHUP_SCENARIOS_DIR ?? join(ROOT, "scenarios");
/** The double; CATCHUP_K6_DOUBLE_DIR points at another copy (to see a strictness test fail against the old double). */
const DOUBLE_DIR = process.env.CATCHUP_K6_DOUBLE_DIR ?? join(ROOT, "test/k6-double");
const REGISTER = join(DOUBLE_DIR, "register.js");
const RUN = join(DOUBLE_DIR, "run.js");

export interface DoubleRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface DoubleOptions {
  /** `run` (default) or `archive` (then pass `-O OUT` in args). */
  command?: "run" | "archive";
  /** k6 `-e` parameters. */
  env?: Record<string, string>;
  /** Extra k6 flags (e.g. --execution-segment 0:1/2). */
  args?: string[];
  /** Added to the process environment k6 inherits. */
  processEnv?: Record<string, string>;
  /** Called with all stderr so far whenever more arrives. */
  onStderr?: (stderr: string) => void;
  timeoutMs?: number;
}

/** `k6 run|archive [flags] [-e K=V]... SCRIPT` under the double; rejects (killing it) after timeoutMs. */
export function runDouble(script: string, options: DoubleOptions = {}): Promise<DoubleRun> {
  const args = ["--import", REGISTER, RUN, options.command ?? "run", "--quiet", ...(options.args ?? [])];
  for (const [k, v] of Object.entries(options.env ?? {})) args.push("-e", `${k}=${v}`);
  args.push(isAbsolute(script) ? script : join(SCENARIOS_DIR, script));
  return runNode(args, {
    timeoutMs: options.timeoutMs ?? 60_000,
    label: `${script} under the k6 double`,
    cwd: ROOT,
    env: { ...process.env, ...options.processEnv },
    onStderr: options.onStderr,
  });
}

/**
 * The k6 driver (memory.js, two sessions, no ACK delay) through `k6Path` (a fake k6 running the
 * double), with `harnessEnv` set in this process's environment meanwhile (restored after).
 */
export async function driverRun(
  k6Path: string,
  url: string,
  overrides: Partial<K6SessionsOptions> = {},
  harnessEnv: Record<string, string> = {},
): Promise<K6SessionsResult> {
  const saved = Object.fromEntries(Object.keys(harnessEnv).map((k) => [k, process.env[k]]));
  Object.assign(process.env, harnessEnv);
  try {
    return await runSessionsK6({
      clients: 2,
      url,
      token: "catchup-dev-token",
      ackDelayMs: 0,
      subscribePayload: { requestCompletionMarker: true },
      timeoutMs: 10_000,
      k6Path,
      scenariosDir: SCENARIOS_DIR,
      ...overrides,
    });
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
