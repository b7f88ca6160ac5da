// A case's client session as the bench configures it: the protocol settings of the run plus the
// case's cursor, turned into the SessionSpec a driver runs.
import { withThreadId } from "../../../scenarios/lib/session.js";
import { type SessionSpec, subscribePayloadFor } from "../../driver/session-spec.js";
import type { LatencyCase, MemoryMode } from "../../results/schema.js";
import { afterSequenceFor, isThreadCase } from "../rounds/plan.js";
import type { ProtocolConfig } from "../run/config.js";

/** Where a session goes: the target's URL and the token it takes (a seeded server's own, else --token). */
export interface SessionServer {
  url: string;
  token: string;
}

export function sessionSpec(
  config: ProtocolConfig,
  server: SessionServer,
  after: number | null,
  holdMs: number,
): SessionSpec {
  return {
    url: server.url,
    token: server.token,
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
  server: SessionServer,
  c: LatencyCase | MemoryMode,
  meta: CaseMeta,
  holdMs: number,
): SessionSpec {
  const after = afterSequenceFor(c, meta);
  const spec = sessionSpec(config, server, after, holdMs);
  if (!isThreadCase(c)) return spec;
  return {
    ...spec,
    subscribeTag: config.threadSubscribeTag,
    subscribePayload: subscribePayloadFor(withThreadId(config.threadSubscribePayload, meta.threadId), after),
  };
}
