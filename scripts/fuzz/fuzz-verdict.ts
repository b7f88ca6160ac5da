// Pure: the fuzz run's figures, its pass/fail checks and their rendering as text lines.
import { mib } from "../util/format.js";
import type { HealthyReport } from "./healthy.js";

export interface FuzzFigures {
  seed: number;
  seconds: number;
  connections: number;
  minFrames: number;
  framesSent: number;
  bytesSent: number;
  actions: number;
  connectionsOpened: number;
  openFailures: string[];
  /** frame kind -> outcome -> actions */
  outcomes: Record<string, Record<string, number>>;
  halfOpen: Record<string, number>;
  halfOpenClosedByServer: number;
  halfOpenErrors: string[];
  healthy: HealthyReport;
  heap: { baselineBytes: number; afterBytes: number; attempts: number } | null;
  /** The server's open file descriptors (sockets included) at the heap baseline and after the fuzz. */
  fds: { baseline: number; after: number } | null;
  heapError: string | null;
  serverExit: { code: number | null; signal: string | null } | null;
  suspiciousStderr: string[];
  stderrLines: number;
  durationMs: number;
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

/** Heap after the fuzz and a forced GC may exceed its start by at most this fraction. */
export const HEAP_TOLERANCE = 0.1;
/** Open fds after the fuzz may exceed the start by this many (the healthy client's catch-up sockets come and go). */
export const FD_SLACK = 4;

export function judgeFuzz(f: FuzzFigures): { pass: boolean; checks: Check[] } {
  const h = f.healthy;
  const heapRatio = f.heap ? f.heap.afterBytes / f.heap.baselineBytes : Number.NaN;
  const checks: Check[] = [
    {
      name: "server never exited",
      pass: f.serverExit === null,
      detail:
        f.serverExit === null
          ? "still running at the end"
          : `exited: code ${f.serverExit.code}, signal ${f.serverExit.signal}`,
    },
    {
      name: `at least ${f.minFrames} frames sent`,
      pass: f.framesSent >= f.minFrames && f.framesSent > 0,
      detail: `${f.framesSent} frames`,
    },
    {
      name: "healthy client saw no error",
      pass: h.errors.length === 0 && h.catchupFailures.length === 0 && h.catchups > 0,
      detail:
        h.errors.length + h.catchupFailures.length === 0
          ? `${h.catchups} catch-ups completed`
          : [...h.errors, ...h.catchupFailures].slice(0, 3).join("; "),
    },
    {
      name: "no missing, duplicated or out-of-order live event",
      pass: h.missing === 0 && h.duplicated === 0 && h.outOfOrder === 0 && h.dispatched > 0,
      detail: `${h.dispatched} commands, ${h.liveItems} live events; missing ${h.missing}, duplicated ${h.duplicated}, out of order ${h.outOfOrder}`,
    },
    {
      name: `heap after fuzz + forced GC within ${HEAP_TOLERANCE * 100}% of its start`,
      pass: f.heap !== null && heapRatio <= 1 + HEAP_TOLERANCE,
      detail: f.heap
        ? `${mib(f.heap.baselineBytes, 2)} MiB -> ${mib(f.heap.afterBytes, 2)} MiB (x${heapRatio.toFixed(3)})`
        : `not measured: ${f.heapError ?? "unknown"}`,
    },
    {
      name: `open file descriptors back to their start (+${FD_SLACK})`,
      pass: f.fds !== null && f.fds.after <= f.fds.baseline + FD_SLACK,
      detail: f.fds ? `${f.fds.baseline} -> ${f.fds.after}` : "not measured",
    },
    {
      name: "no unhandled error in the server's stderr",
      pass: f.suspiciousStderr.length === 0,
      detail: f.suspiciousStderr.length === 0 ? `${f.stderrLines} stderr lines scanned` : (f.suspiciousStderr[0] ?? ""),
    },
  ];
  return { pass: checks.every((c) => c.pass), checks };
}

/** The human-readable report the `fuzz` command prints. */
export function formatFuzzReport(f: FuzzFigures, verdict: { pass: boolean; checks: Check[] }): string[] {
  const lines: string[] = [];
  lines.push(
    `fuzz: seed ${f.seed}, ${f.seconds} s, ${f.connections} connections; ran ${(f.durationMs / 1000).toFixed(1)} s`,
  );
  lines.push(
    `frames sent: ${f.framesSent} (${mib(f.bytesSent, 2)} MiB) in ${f.actions} actions over ${f.connectionsOpened} connections`,
  );
  const halfOpenTotal = Object.values(f.halfOpen).reduce((a, b) => a + b, 0);
  lines.push(
    `raw-socket faults: ${halfOpenTotal} (${Object.entries(f.halfOpen)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}); closed by the server while held: ${f.halfOpenClosedByServer}`,
  );
  lines.push("outcomes by kind (actions):");
  const kinds = Object.keys(f.outcomes).sort();
  const width = Math.max(4, ...kinds.map((k) => k.length));
  for (const kind of kinds) {
    const byOutcome = f.outcomes[kind] ?? {};
    const total = Object.values(byOutcome).reduce((a, b) => a + b, 0);
    const parts = Object.entries(byOutcome)
      .sort((a, b) => b[1] - a[1])
      .map(([o, n]) => `${o} ${n}`)
      .join(", ");
    lines.push(`  ${kind.padEnd(width)} ${String(total).padStart(6)}  ${parts}`);
  }
  const h = f.healthy;
  lines.push(
    `healthy client: ${h.catchups} catch-ups, ${h.dispatched} commands, ${h.liveItems} live events, missing ${h.missing}, duplicated ${h.duplicated}, out of order ${h.outOfOrder}`,
  );
  lines.push(
    f.heap
      ? `server heap (post-GC): before ${mib(f.heap.baselineBytes, 2)} MiB, after ${mib(f.heap.afterBytes, 2)} MiB`
      : `server heap: not measured (${f.heapError ?? "unknown"})`,
  );
  if (f.fds) lines.push(`server open fds: before ${f.fds.baseline}, after ${f.fds.after}`);
  for (const e of [...f.openFailures, ...f.halfOpenErrors].slice(0, 5)) lines.push(`note: ${e}`);
  for (const c of verdict.checks) lines.push(`${c.pass ? "PASS" : "FAIL"} ${c.name}: ${c.detail}`);
  lines.push(verdict.pass ? "fuzz: PASS" : "fuzz: FAIL");
  return lines;
}
