// Which catch-up a subscriber gets: a snapshot, or a coalesced replay after its cursor when the gap
// is within the replay budget (events and stored payload bytes); beyond it, a snapshot instead.
import type { CatchUp } from "./delivery.js";
import type { ShellItem } from "./rpcs.js";
import type { EventStore } from "./store.js";

export interface ReplayLimits {
  maxReplayEvents: number;
  maxReplayBytes: number;
}

export type CatchUpResult =
  | { ok: true; catchUp: CatchUp; fellBack: boolean }
  | { ok: false; afterSequence: number; latestSequence: number };

/** Reads the catch-up synchronously, so its sequence is the store's latest at this instant. */
export function readCatchUp(store: EventStore, afterSequence: number | undefined, limits: ReplayLimits): CatchUpResult {
  const sequence = store.latestSequence;
  if (afterSequence !== undefined && afterSequence > sequence) {
    return { ok: false, afterSequence, latestSequence: sequence };
  }
  if (afterSequence !== undefined) {
    const cost = store.rangeCost(afterSequence);
    if (cost.events <= limits.maxReplayEvents && cost.payloadBytes <= limits.maxReplayBytes) {
      const replay: ShellItem[] = store
        .replay(afterSequence)
        .map((r) => ({ kind: "project.updated", sequence: r.sequence, project: r.project }));
      const resume: ShellItem = { kind: "resume", fromSequence: afterSequence, toSequence: sequence };
      return { ok: true, catchUp: { kind: "resume", resume, replay, sequence }, fellBack: false };
    }
  }
  const snapshot: ShellItem = { kind: "snapshot", snapshotSequence: sequence, projects: store.snapshot() };
  return { ok: true, catchUp: { kind: "snapshot", snapshot, sequence }, fellBack: afterSequence !== undefined };
}
