// bench:client part 2: can one Node process drive many delayed-ACK sessions without distorting
// them? C concurrent sessions through the Node driver; its event-loop lag p99 is the figure
// (target under 10 ms).
import { buildSubscribePayload, DEFAULT_SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/session.js";
import { type LoopLag, runSessions } from "../driver/node.js";
import { median, quantile } from "../stats.js";

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
  loopLag: LoopLag;
}

export async function measureCapacity(
  url: string,
  token: string,
  after: number,
  clients: number,
  ackDelayMs: number,
): Promise<CapacityResult> {
  const started = performance.now();
  const { rows, loopLag } = await runSessions({
    clients,
    url,
    token,
    ackDelayMs,
    subscribePayload: buildSubscribePayload(DEFAULT_SUBSCRIBE_TEMPLATE, after),
    timeoutMs: 120_000,
  });
  const wallMs = performance.now() - started;
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
    loopLag,
  };
}
