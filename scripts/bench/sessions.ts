// The bench's view of a driver: run C concurrent client sessions of one case against a URL and
// return their figures. The Node driver (scripts/driver/node.ts) runs the shared client in this
// process; the k6 driver runs the same client under k6.
import { buildSubscribePayload, withThreadId } from "../../scenarios/lib/session.js";
import type { LatencyCase, MemoryMode, SessionFigures } from "../results/schema.js";
import type { BenchConfig, CompletionRule } from "./config.js";
import { afterSequenceFor, isThreadCase } from "./plan.js";

export interface SessionSpec {
  url: string;
  token: string;
  /** Extra headers of the WebSocket upgrade. */
  headers: Record<string, string>;
  subscribeTag: string;
  /** The built payload (afterSequence substituted, or dropped for a snapshot). */
  subscribePayload: Record<string, unknown>;
  completion: CompletionRule;
  ackDelayMs: number;
  holdMs: number;
  probe: { tag: string; payload: unknown } | null;
  timeoutMs: number;
}

export type PhaseName = "connect" | "open" | "first-chunk" | "completion" | "hold-end" | "close";

export interface ClientsRun {
  rows: SessionFigures[];
  /** The driver's event-loop lag while the sessions ran (ms); null when the driver cannot measure it (k6). */
  loopLag?: { p50: number; p99: number; max: number } | null;
}

export type RunClients = (
  clients: number,
  spec: SessionSpec,
  onPhase?: (index: number, phase: PhaseName) => void,
) => Promise<ClientsRun>;

/** Builds the subscribe payload from the template (the shared client's rule: `{after}` -> the sequence, or dropped). */
export function subscribePayloadFor(template: string, after: number | null): Record<string, unknown> {
  return buildSubscribePayload(template, after) as Record<string, unknown>;
}

export function sessionSpec(config: BenchConfig, url: string, after: number | null, holdMs: number): SessionSpec {
  return {
    url,
    token: config.token,
    headers: config.headers,
    subscribeTag: config.subscribeTag,
    subscribePayload: subscribePayloadFor(config.subscribePayload, after),
    completion: config.completion,
    ackDelayMs: config.ackDelayMs,
    holdMs,
    probe: { tag: config.probeTag, payload: config.probePayload },
    timeoutMs: config.trialTimeoutMs,
  };
}

/** What a case's session needs from the fixture: the cursors, and the measured thread. */
export interface CaseMeta {
  cursorSequence: number;
  latestSequence: number;
  threadId: string;
  threadCursorSequence: number;
}

/**
 * The session of a case: a shell case subscribes with --subscribe-tag/--subscribe-payload, a thread
 * case with --thread-subscribe-tag/--thread-subscribe-payload to the fixture's measured thread.
 */
export function caseSessionSpec(
  config: BenchConfig,
  url: string,
  c: LatencyCase | MemoryMode,
  meta: CaseMeta,
  holdMs: number,
): SessionSpec {
  const after = afterSequenceFor(c, meta);
  const spec = sessionSpec(config, url, after, holdMs);
  if (!isThreadCase(c)) return spec;
  return {
    ...spec,
    subscribeTag: config.threadSubscribeTag,
    subscribePayload: subscribePayloadFor(withThreadId(config.threadSubscribePayload, meta.threadId), after),
  };
}
