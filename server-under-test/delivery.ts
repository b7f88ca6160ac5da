// The change under test lives here, and only here: how a catch-up is cut into stream chunks.
// Each returned chunk becomes one Chunk frame, and the server waits for the client's Ack after
// each frame, so fewer chunks through the completion marker means fewer round trips.
import type { ProjectShell, ShellItem } from "./rpcs.js";

export const DELIVERY_STRATEGIES = ["legacy", "batched"] as const;
export type DeliveryStrategy = (typeof DELIVERY_STRATEGIES)[number];

/**
 * The replay's event log is read from the store in pages of this many events, as the reference
 * server's event store reads (each page one query); legacy delivery groups what it reads (see
 * replay-stream.ts).
 */
export const REPLAY_READ_PAGE = 500;

/**
 * A replay read on demand: `readPage(from, to)` reads positions [from, to) of its event log (one
 * store query, cheap: which projects changed, not their bodies); `read(from, to)` fetches the items
 * for those positions (each project's current shell).
 */
export interface ReplaySource {
  readonly size: number;
  readPage?(from: number, to: number): void;
  read(from: number, to: number): ShellItem[];
  /** What the whole replay would encode to (bytes), projected from stored sizes without reading it. */
  projectedBytes?: () => number;
}

/** A replay already in memory, as a source. */
export function replayOf(items: ShellItem[]): ReplaySource {
  return { size: items.length, read: (from, to) => items.slice(from, to) };
}

/**
 * The catch-up to deliver: a snapshot (with, in the reference shape, its same-sequence enrichment
 * item), or resume metadata plus the coalesced replay (read from the store only when delivered).
 */
export type CatchUp =
  | { kind: "snapshot"; snapshot: ShellItem; enrichment?: ShellItem | undefined; sequence: number }
  | { kind: "resume"; resume: ShellItem; replay: ShellItem[] | ReplaySource; sequence: number };

/**
 * One piece to deliver: a chunk of items, or a replay streamed lazily in groups (each group one
 * chunk, its pages read from the store only when the stream pulls it; see replay-stream.ts).
 */
export type PlannedChunk = ShellItem[] | { replay: ReplaySource };

export interface DeliveryOptions {
  strategy: DeliveryStrategy;
  requestCompletionMarker: boolean;
  /** Batched only: split the first chunk so each stays within this many serialized bytes. */
  maxInitialChunkBytes?: number | undefined;
  /**
   * Batched only: a marked resume whose replay is projected to encode beyond this many bytes takes
   * the streaming (legacy) path instead, so no single frame carries the whole replay.
   */
  maxProjectedBytes?: number | undefined;
}

/** Serialized bytes of the Chunk frame envelope around the values (`{"_tag":"Chunk",...}`), a safe over-estimate. */
export const CHUNK_ENVELOPE_BYTES = 64;

/**
 * Cuts a catch-up into chunks, in delivery order; the completion marker, when requested, is last.
 * Batched delivery to a client that asked for the marker reads the whole replay now (it goes out
 * in one frame); otherwise the replay is streamed in groups, each read when the stream pulls it,
 * which the RPC server does only after the client ACKed the previous chunk.
 */
export function planChunks(catchUp: CatchUp, options: DeliveryOptions): PlannedChunk[] {
  const marker: ShellItem[] = options.requestCompletionMarker
    ? [{ kind: "synchronized", sequence: catchUp.sequence }]
    : [];
  const snapshotItems = (c: Extract<CatchUp, { kind: "snapshot" }>): ShellItem[] =>
    c.enrichment === undefined ? [c.snapshot] : [c.snapshot, c.enrichment];
  if (options.strategy === "batched" && options.requestCompletionMarker && !overProjected(catchUp, options)) {
    const budget = options.maxInitialChunkBytes;
    if (budget === undefined) {
      return [
        catchUp.kind === "snapshot"
          ? [...snapshotItems(catchUp), ...marker]
          : [catchUp.resume, ...readAll(catchUp.replay), ...marker],
      ];
    }
    // A lean snapshot is one item holding every project: page it so the budget holds for it too.
    const initial =
      catchUp.kind === "resume"
        ? [catchUp.resume, ...readAll(catchUp.replay)]
        : catchUp.enrichment === undefined
          ? pageSnapshot(catchUp.snapshot, budget)
          : snapshotItems(catchUp);
    return splitByBytes([...initial, ...marker], budget);
  }
  // legacy, and batched for clients that did not ask for the marker (old clients keep the old path)
  const chunks: PlannedChunk[] =
    catchUp.kind === "snapshot"
      ? [snapshotItems(catchUp)]
      : [[catchUp.resume], ...(replaySize(catchUp.replay) > 0 ? [{ replay: sourceOf(catchUp.replay) }] : [])];
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

/** True when a resume's replay is projected to encode beyond --max-projected-bytes. */
export function overProjected(catchUp: CatchUp, options: DeliveryOptions): boolean {
  const limit = options.maxProjectedBytes;
  if (limit === undefined || catchUp.kind !== "resume") return false;
  return projectedBytes(catchUp.replay) > limit;
}

/** Projected encoded bytes of a replay: the source's own projection, else the encoded size of items in memory. */
export function projectedBytes(replay: ShellItem[] | ReplaySource): number {
  if (Array.isArray(replay)) return replay.reduce((n, item) => n + Buffer.byteLength(JSON.stringify(item)) + 1, 0);
  if (replay.projectedBytes) return replay.projectedBytes();
  return projectedBytes(replay.read(0, replay.size));
}

function sourceOf(replay: ShellItem[] | ReplaySource): ReplaySource {
  return Array.isArray(replay) ? replayOf(replay) : replay;
}

function replaySize(replay: ShellItem[] | ReplaySource): number {
  return Array.isArray(replay) ? replay.length : replay.size;
}

/** The whole replay, read now: every page of its event log, then every item. */
function readAll(replay: ShellItem[] | ReplaySource): ShellItem[] {
  const source = sourceOf(replay);
  for (let from = 0; from < source.size; from += REPLAY_READ_PAGE) {
    source.readPage?.(from, Math.min(from + REPLAY_READ_PAGE, source.size));
  }
  return source.read(0, source.size);
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
