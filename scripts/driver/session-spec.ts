// The bench's view of a driver: run C concurrent client sessions of one case against a URL and
// return their figures. The Node driver (node.ts) runs the shared client in this process; the k6
// driver runs the same client under k6.
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import type { SessionFigures } from "../results/schema.js";

/** What marks the end of a catch-up: an item field's value (`kind=synchronized`), or the stream's Exit. */
export type CompletionRule = { field: string; value: string } | "exit";

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
