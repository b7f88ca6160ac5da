// Which catch-up a subscriber gets: a snapshot, or a coalesced replay after its cursor when the gap
// is within the replay budget (events and stored payload bytes); beyond it, a snapshot instead.
// Items take one of two shapes: the reference server's (a cold snapshot is an authoritative item
// plus a same-sequence enrichment item whose projects carry their scripts again; a resume opens with
// a metadata snapshot of every project) or this server's earlier lean shape (one snapshot item; a
// tiny resume item).
import * as Schema from "effect/Schema";
import type { CatchUp, ReplaySource } from "./delivery.js";
import { ProjectShell, type ShellItem } from "./rpcs.js";
import type { EventStore } from "./store.js";

export const ITEM_SHAPES = ["reference", "lean"] as const;
export type ItemShape = (typeof ITEM_SHAPES)[number];

/**
 * JSON keys and punctuation of one `project.updated` item around its stored text (kind, sequence,
 * the shell's keys, a title changed at run time): measured at 134 bytes, rounded up so the projection errs high.
 */
export const PROJECTED_ITEM_OVERHEAD = 160;

/** The reference server's shell snapshot schema version. */
export const SHELL_SCHEMA_VERSION = 1;

export interface ReplayLimits {
  maxReplayEvents: number;
  maxReplayBytes: number;
}

export type CatchUpResult =
  | { ok: true; catchUp: CatchUp; fellBack: boolean }
  | { ok: false; afterSequence: number; latestSequence: number };

const decodeProject = Schema.decodeUnknownSync(ProjectShell);

/** Reads the catch-up synchronously, so its sequence is the store's latest at this instant. */
export function readCatchUp(
  store: EventStore,
  afterSequence: number | undefined,
  limits: ReplayLimits,
  shape: ItemShape = "lean",
): CatchUpResult {
  const sequence = store.latestSequence;
  if (afterSequence !== undefined && afterSequence > sequence) {
    return { ok: false, afterSequence, latestSequence: sequence };
  }
  if (afterSequence !== undefined) {
    const cost = store.rangeCost(afterSequence);
    if (cost.events <= limits.maxReplayEvents && cost.payloadBytes <= limits.maxReplayBytes) {
      return { ok: true, catchUp: resumeCatchUp(store, afterSequence, sequence, shape), fellBack: false };
    }
  }
  return { ok: true, catchUp: snapshotCatchUp(store, sequence, shape), fellBack: afterSequence !== undefined };
}

function snapshotCatchUp(store: EventStore, sequence: number, shape: ItemShape): CatchUp {
  const projects = store.snapshot();
  if (shape === "lean") {
    return { kind: "snapshot", snapshot: { kind: "snapshot", snapshotSequence: sequence, projects }, sequence };
  }
  const items = referenceSnapshotItems(projects, sequence);
  return { kind: "snapshot", snapshot: items.authoritative, enrichment: items.enrichment, sequence };
}

function resumeCatchUp(store: EventStore, afterSequence: number, sequence: number, shape: ItemShape): CatchUp {
  const resume: ShellItem =
    shape === "lean"
      ? { kind: "resume", fromSequence: afterSequence, toSequence: sequence }
      : // Metadata only (no authoritative body): the enrichment item of every project, as the
        // reference server resumes.
        referenceSnapshotItems(store.snapshot(), sequence).enrichment;
  return { kind: "resume", resume, replay: replaySource(store, afterSequence, shape), sequence };
}

/**
 * The coalesced replay after `afterSequence`: which projects (and at which sequence) is settled now,
 * so the catch-up ends at this instant's high-water mark; each project's shell is fetched from the
 * store only when its items are read (in the reference shape, decoded with its schema, one by one).
 */
function replaySource(store: EventStore, afterSequence: number, shape: ItemShape): ReplaySource {
  const touched = store.touchedAfter(afterSequence);
  return {
    size: touched.length,
    projectedBytes: () =>
      touched.reduce((n, t) => n + store.storedShellBytes(t.projectId) + PROJECTED_ITEM_OVERHEAD, 0),
    // the event log is already coalesced in `touched`; a page read is the query that would fetch it
    readPage: () => store.notePageRead(),
    read: (from, to) => {
      const out: ShellItem[] = [];
      for (const { projectId, sequence } of touched.slice(from, to)) {
        const row = store.projectRow(projectId);
        if (row === undefined) continue;
        const project = shape === "lean" ? (row as ProjectShell) : decodeProject(row);
        out.push({ kind: "project.updated", sequence, project });
      }
      return out;
    },
  };
}

/**
 * The reference server's initial snapshot items: the authoritative item, and the same-sequence
 * enrichment item carrying the projects whose repository roots resolved (here: all of them).
 */
export function referenceSnapshotItems(
  projects: ProjectShell[],
  sequence: number,
): { authoritative: ShellItem; enrichment: ShellItem } {
  const body = {
    schemaVersion: SHELL_SCHEMA_VERSION,
    snapshotSequence: sequence,
    projects,
    threads: [],
    archivedThreads: [],
  };
  const roots = [...new Set(projects.map((p) => p.workspaceRoot))];
  return {
    authoritative: { kind: "snapshot", snapshot: body },
    enrichment: {
      kind: "snapshot",
      snapshot: { ...body, projects: projects.filter((p) => roots.includes(p.workspaceRoot)) },
      resolvedRepositoryIdentityRoots: roots,
    },
  };
}
