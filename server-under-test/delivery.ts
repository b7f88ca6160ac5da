// The change under test lives here, and only here: how a catch-up is cut into stream chunks.
// Each returned chunk becomes one Chunk frame, and the server waits for the client's Ack after
// each frame, so fewer chunks through the completion marker means fewer round trips.
import type { ShellItem } from "./rpcs.js";

export const DELIVERY_STRATEGIES = ["legacy", "batched"] as const;
export type DeliveryStrategy = (typeof DELIVERY_STRATEGIES)[number];

/** Legacy replay chunks carry at most this many replayed items (as the reference server did). */
export const LEGACY_REPLAY_CHUNK = 512;

/** The catch-up to deliver: a snapshot, or resume metadata plus the coalesced replay. */
export type CatchUp =
  | { kind: "snapshot"; snapshot: ShellItem; sequence: number }
  | { kind: "resume"; resume: ShellItem; replay: ShellItem[]; sequence: number };

export interface DeliveryOptions {
  strategy: DeliveryStrategy;
  requestCompletionMarker: boolean;
  /** Batched only: split the first chunk so each stays within this many serialized bytes. */
  maxInitialChunkBytes?: number | undefined;
}

/** Serialized bytes of the Chunk frame envelope around the values (`{"_tag":"Chunk",...}`), a safe over-estimate. */
export const CHUNK_ENVELOPE_BYTES = 64;

/** Cuts a catch-up into chunks, in delivery order; the completion marker, when requested, is last. */
export function planChunks(catchUp: CatchUp, options: DeliveryOptions): ShellItem[][] {
  const marker: ShellItem[] = options.requestCompletionMarker
    ? [{ kind: "synchronized", sequence: catchUp.sequence }]
    : [];
  if (options.strategy === "batched" && options.requestCompletionMarker) {
    const all =
      catchUp.kind === "snapshot" ? [catchUp.snapshot, ...marker] : [catchUp.resume, ...catchUp.replay, ...marker];
    return options.maxInitialChunkBytes === undefined ? [all] : splitByBytes(all, options.maxInitialChunkBytes);
  }
  // legacy, and batched for clients that did not ask for the marker (old clients keep the old path)
  const chunks: ShellItem[][] =
    catchUp.kind === "snapshot" ? [[catchUp.snapshot]] : [[catchUp.resume], ...slices(catchUp.replay)];
  if (marker.length > 0) chunks.push(marker);
  return chunks;
}

function slices(items: ShellItem[]): ShellItem[][] {
  const out: ShellItem[][] = [];
  for (let i = 0; i < items.length; i += LEGACY_REPLAY_CHUNK) out.push(items.slice(i, i + LEGACY_REPLAY_CHUNK));
  return out;
}

/**
 * Greedy split in order: a chunk takes items while its frame (envelope + items + commas) stays
 * within `budget` bytes. An item larger than the budget on its own gets a chunk of its own.
 */
export function splitByBytes(items: ShellItem[], budget: number): ShellItem[][] {
  const out: ShellItem[][] = [];
  let current: ShellItem[] = [];
  let bytes = CHUNK_ENVELOPE_BYTES;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && bytes + size > budget) {
      out.push(current);
      current = [];
      bytes = CHUNK_ENVELOPE_BYTES;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}
