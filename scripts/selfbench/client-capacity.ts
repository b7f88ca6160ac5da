// bench:client part 2: can one Node process drive many delayed-ACK sessions without distorting
// them? C concurrent sessions through the Node driver; its event-loop lag p99 is the figure
// (target under 10 ms).
import { SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import { runSessions } from "../driver/node.js";
import { type LoopLag, startLoopLag } from "../driver/node-session.js";
import { median, quantile } from "../util/stats.js";

export interface CapacityResult {
  clients: number;
  ackDelayMs: number;
  ok: number;
  failed: number;
  firstError: string | null;
  chunksPerSession: number[];
  completionMs: { median: number; p99: number; max: number } | null;
  probeMs: { median: number; p99: number } | null;
  wallMs: number;
  /** CPU time (user + system) this driver process spent while the sessions ran. */
  driverCpuMs: number;
  /** Most sessions open at the same moment (from the phase marks). */
  maxOpen: number;
  loopLag: LoopLag;
}

/**
 * The loop lag of this process doing nothing for `ms`: the control. On a shared machine other
 * processes' CPU use shows up as lag too, so the sessions' lag is read beside this.
 */
export async function idleLoopLag(ms: number): Promise<LoopLag> {
  const stopLag = startLoopLag();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return stopLag();
}

export async function measureCapacity(
  url: string,
  token: string,
  after: number,
  clients: number,
  ackDelayMs: number,
  holdMs: number,
  startIntervalMs: number,
): Promise<CapacityResult> {
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let open = 0;
  let maxOpen = 0;
  const { rows, loopLag } = await runSessions({
    clients,
    url,
    token,
    ackDelayMs,
    holdMs,
    startIntervalMs,
    onPhase: (_index, phase) => {
      if (phase === "open") maxOpen = Math.max(maxOpen, ++open);
      else if (phase === "close") open--;
    },
    subscribePayload: buildSubscribePayload(SUBSCRIBE_TEMPLATE, after),
    timeoutMs: 120_000,
  });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const ok = rows.filter((r) => r.ok);
  const completion = ok.map((r) => r.completionMs ?? 0);
  const probe = ok.flatMap((r) => (r.probeMs === null ? [] : [r.probeMs]));
  return {
    clients,
    ackDelayMs,
    ok: ok.length,
    failed: rows.length - ok.length,
    firstError: rows.find((r) => !r.ok)?.error ?? null,
    chunksPerSession: [...new Set(ok.map((r) => r.chunks))].sort((a, b) => a - b),
    completionMs: completion.length
      ? { median: median(completion), p99: quantile(completion, 0.99), max: Math.max(...completion) }
      : null,
    probeMs: probe.length ? { median: median(probe), p99: quantile(probe, 0.99) } : null,
    wallMs,
    driverCpuMs: (cpu.user + cpu.system) / 1000,
    maxOpen,
    loopLag,
  };
}
