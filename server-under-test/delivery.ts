// The change under test lives here, and only here: how a catch-up is cut into stream chunks.
// Each returned chunk becomes one Chunk frame, and the server waits for the client's Ack after
// each frame, so fewer chunks through the completion marker means fewer round trips.
import type { ProjectShell, ShellItem } from "./rpcs.js";

export const DELIVERY_STRATEGIES = ["legacy", "batched"] as const;
export type DeliveryStrategy = (typeof DELIVERY_STRATEGIES)[number];

/** Legacy replay chunks carry at most this many replayed items (as the reference server did). */
export const LEGACY_REPLAY_CHUNK = 512;

/**
 * The catch-up to deliver: a snapshot (with, in the reference shape, its same-sequence enrichment
 * item), or resume metadata plus the coalesced replay.
 */
export type CatchUp =
  | { kind: "snapshot"; snapshot: ShellItem; enrichment?: ShellItem | undefined; sequence: number }
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
  const snapshotItems = (c: Extract<CatchUp, { kind: "snapshot" }>): ShellItem[] =>
    c.enrichment === undefined ? [c.snapshot] : [c.snapshot, c.enrichment];
  if (options.strategy === "batched" && options.requestCompletionMarker) {
    const budget = options.maxInitialChunkBytes;
    if (budget === undefined) {
      return [
        catchUp.kind === "snapshot"
          ? [...snapshotItems(catchUp), ...marker]
          : [catchUp.resume, ...catchUp.replay, ...marker],
      ];
    }
    // A lean snapshot is one item holding every project: page it so the budget holds for it too.
    const initial =
      catchUp.kind === "resume"
        ? [catchUp.resume, ...catchUp.replay]
        : catchUp.enrichment === undefined
          ? pageSnapshot(catchUp.snapshot, budget)
          : snapshotItems(catchUp);
    return splitByBytes([...initial, ...marker], budget);
  }
  // legacy, and batched for clients that did not ask for the marker (old clients keep the old path)
  const chunks: ShellItem[][] =
    catchUp.kind === "snapshot" ? [snapshotItems(catchUp)] : [[catchUp.resume], ...slices(catchUp.replay)];
  if (marker.length > 0) chunks.push(marker);
  return chunks;
}

/**
 * Splits a snapshot item into `{kind:"snapshot", snapshotSequence, projects:[…], page, pages}` items
 * (page 1..pages, in project order), each small enough that its chunk frame stays within `budget`
 * bytes; a project larger than the budget on its own gets a page of its own (over budget).
 */
export function pageSnapshot(snapshot: ShellItem, budget: number): ShellItem[] {
  if (snapshot.kind !== "snapshot" || !("projects" in snapshot)) return [snapshot];
  const { snapshotSequence, projects } = snapshot;
  // the item without projects, with page/pages at their widest, so the real item is never larger
  const widest = projects.length === 0 ? 1 : projects.length;
  const shell = Buffer.byteLength(
    JSON.stringify({ kind: "snapshot", snapshotSequence, projects: [], page: widest, pages: widest }),
  );
  const pages: ProjectShell[][] = [];
  let current: ProjectShell[] = [];
  let bytes = CHUNK_ENVELOPE_BYTES + shell + 1;
  for (const project of projects) {
    const size = Buffer.byteLength(JSON.stringify(project)) + 1;
    if (current.length > 0 && bytes + size > budget) {
      pages.push(current);
      current = [];
      bytes = CHUNK_ENVELOPE_BYTES + shell + 1;
    }
    current.push(project);
    bytes += size;
  }
  pages.push(current); // also the one empty page of an empty snapshot
  return pages.map((page, i) => ({
    kind: "snapshot",
    snapshotSequence,
    projects: page,
    page: i + 1,
    pages: pages.length,
  }));
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
