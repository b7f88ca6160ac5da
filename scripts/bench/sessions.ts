// A case's client session as the bench configures it: the protocol settings of the run plus the
// case's cursor, turned into the SessionSpec a driver runs.
import { withThreadId } from "../../scenarios/lib/session.js";
import { type SessionSpec, subscribePayloadFor } from "../driver/session-spec.js";
import type { LatencyCase, MemoryMode } from "../results/schema.js";
import type { ProtocolConfig } from "./config.js";
import { afterSequenceFor, isThreadCase } from "./plan.js";

export function sessionSpec(config: ProtocolConfig, url: string, after: number | null, holdMs: number): SessionSpec {
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
  config: ProtocolConfig,
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
