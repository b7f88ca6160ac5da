// The k6 driver: runs the same scenario logic under Grafana k6 (`k6 run scenarios/memory.js`) with
// the session parameters as env, and reads the per-session rows back from the summary JSON the
// script's handleSummary writes. k6 cannot be installed on every machine: without it on PATH this
// fails with a clear message.
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  COMPLETION_MARKER,
  DEFAULT_SESSION_TIMEOUT_MS,
  PROBE_TAG,
  SUBSCRIBE_TAG,
} from "../../scenarios/lib/protocol.js";
import type { SessionResult } from "../../scenarios/lib/session.js";
import { spawnProcess, type TargetProcess } from "../server-process/process.js";
import { k6ProcessEnv } from "./k6-env.js";
import type { DriverSessionOptions } from "./node-session.js";

export const K6_NOT_FOUND = "k6 not found on PATH; install k6 >= 1.6 or use --driver node";
/** scenarios/ of this package, from dist/scripts/driver/ (compiled) or scripts/driver/ (tests run the source). */
function defaultScenariosDir(): string {
  const candidates = ["../../../scenarios/", "../../scenarios/"].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((dir) => existsSync(join(dir, "memory.js"))) ?? (candidates[0] as string);
}

export class K6NotFoundError extends Error {
  override readonly name = "K6NotFoundError";
  constructor() {
    super(K6_NOT_FOUND);
  }
}

/** The k6 executable on PATH, or null. */
export function findK6(pathEnv: string | undefined = process.env.PATH): string | null {
  for (const dir of (pathEnv ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "k6");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export interface K6SessionsOptions extends DriverSessionOptions {
  clients: number;
  /** k6 executable; default: found on PATH. */
  k6Path?: string;
  /** Deadline for the whole k6 process (default: k6ProcessDeadlineMs of the session timeout). */
  processTimeoutMs?: number;
  /** Directory holding memory.js (default: this package's scenarios/). */
  scenariosDir?: string;
}

export interface K6SessionsResult {
  rows: SessionResult[];
  /** k6 measures no event-loop lag of its own; its VU scheduling is not comparable. */
  loopLag: null;
  /** k6's exit code: 0, or 99 when a threshold failed (rows are still valid). */
  exitCode: number;
}

/**
 * k6's WebSocket dial has a 60 s handshake timeout (grafana/k6 internal/js/modules/k6/websockets/
 * websockets.go:278). A session that times out while CONNECTING leaves its socket to the dial (a
 * close() then would hang k6), and the iteration, so k6, lasts until the dial ends: up to 60 s.
 */
export const K6_HANDSHAKE_TIMEOUT_MS = 60_000;

/**
 * The deadline for a k6 process whose sessions time out after `sessionTimeoutMs`: the later of the
 * session timeout and a hung dial's end, plus 30 s for k6's start, setup and summary.
 */
export function k6ProcessDeadlineMs(sessionTimeoutMs: number): number {
  return Math.max(sessionTimeoutMs, K6_HANDSHAKE_TIMEOUT_MS) + 30_000;
}

/**
 * The env for scenarios/memory.js that reproduces these session options: CLIENTS sessions at once
 * with the subscribe payload as built (AFTER_SEQUENCE only skips the script's getConfig lookup;
 * a payload without `{after}` is sent unchanged).
 */
export function k6EnvFor(options: K6SessionsOptions, summaryPath: string): Record<string, string> {
  const completion = options.completion ?? COMPLETION_MARKER;
  const env: Record<string, string> = {
    URL: options.url,
    TOKEN: options.token ?? "",
    TOKEN_IN: options.tokenIn ?? "header",
    HEADERS: JSON.stringify(options.headers ?? {}),
    CLIENTS: String(options.clients),
    ACK_DELAY_MS: String(options.ackDelayMs ?? 0),
    HOLD_MS: String(options.holdMs ?? 0),
    SUBSCRIBE_TAG: options.subscribeTag ?? SUBSCRIBE_TAG,
    SUBSCRIBE_PAYLOAD: JSON.stringify(options.subscribePayload ?? {}),
    AFTER_SEQUENCE: "0",
    // The new summary format changes handleSummary's data; the script reads the classic one.
    K6_NEW_MACHINE_READABLE_SUMMARY: "false",
    COMPLETION: completion === "exit" ? "exit" : `${completion.field}=${String(completion.value)}`,
    PROBE_TAG: options.probe === null ? "none" : (options.probe?.tag ?? PROBE_TAG),
    PROBE_PAYLOAD: JSON.stringify(options.probe?.payload ?? {}),
    TIMEOUT_MS: String(options.timeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS),
    SUMMARY: summaryPath,
  };
  return env;
}

/** Failure reasons from the scenario's console.error lines ("session N: reason"), k6 logfmt or plain. */
export function sessionErrorsFromLog(log: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of log.split("\n")) {
    const m = /session (\d+): (.*)$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    let reason = m[2];
    const logfmt = /^(.*?)" source=console\s*$/.exec(reason);
    if (logfmt?.[1] !== undefined) reason = logfmt[1].replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    out.set(Number(m[1]), reason);
  }
  return out;
}

/** Runs `clients` sessions under k6 (scenarios/memory.js) and returns rows like the Node driver's. */
export async function runSessionsK6(options: K6SessionsOptions): Promise<K6SessionsResult> {
  const k6 = options.k6Path ?? findK6();
  if (!k6) throw new K6NotFoundError();
  const dir = mkdtempSync(join(tmpdir(), "catchup-k6-"));
  const summaryPath = join(dir, "summary.json");
  try {
    const env = k6EnvFor(options, summaryPath);
    // Parameters travel in the environment (k6 copies it into __ENV), not argv: the token stays out of `ps`.
    const args = ["run", "--quiet", join(options.scenariosDir ?? defaultScenariosDir(), "memory.js")];
    const timeoutMs = options.processTimeoutMs ?? k6ProcessDeadlineMs(options.timeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS);
    // Only what k6 needs of our environment: K6_* and scenario variables would change the run.
    const { code, stderr } = await runProcess(k6, args, k6ProcessEnv(process.env, env), timeoutMs);
    if (code !== 0 && code !== 99) {
      throw new Error(`k6 exited with code ${code}; last output:\n${lastLines(stderr, 15)}`);
    }
    let summary: { rows?: SessionResult[]; error?: string };
    try {
      summary = JSON.parse(readFileSync(summaryPath, "utf8"));
    } catch (e) {
      throw new Error(`k6 wrote no readable summary (${(e as Error).message}); last output:\n${lastLines(stderr, 15)}`);
    }
    if (typeof summary.error === "string") throw new Error(`k6 summary: ${summary.error}`);
    const reasons = sessionErrorsFromLog(stderr);
    const rows = (summary.rows ?? []).map((row, i) => (row.ok ? row : { ...row, error: reasons.get(i) ?? row.error }));
    return { rows, loopLag: null, exitCode: code };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs k6 through scripts/server-process/ (its own process group and a reaper), so k6 ends with the harness
 * even when the harness is SIGKILLed; SIGKILL after timeoutMs.
 */
async function runProcess(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number; stderr: string }> {
  let k6: TargetProcess;
  try {
    k6 = spawnProcess({ argv: [cmd, ...args], env, graceMs: 1000, stderrChars: 200_000 });
  } catch (e) {
    throw new Error(`cannot run ${cmd}: ${(e as Error).message}`);
  }
  k6.child.stdin?.end(); // k6 reads nothing from us
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  const exit = await Promise.race([k6.exited, timedOut]);
  clearTimeout(timer);
  if (exit === null) {
    await k6.stop(0);
    throw new Error(`k6 did not finish within ${timeoutMs} ms; last output:\n${lastLines(k6.stderrTail(200), 15)}`);
  }
  await k6.stop(); // anything it left in its group
  return { code: exit.code ?? (exit.signal ? 128 : 1), stderr: k6.stderrTail(100_000) };
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split("\n").slice(-n).join("\n");
}
