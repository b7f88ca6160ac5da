// The event store: the fixture opened read-only, plus the events appended while the server runs,
// kept in memory. The fixture file is never written (the bench must be repeatable on one file).
import type Database from "better-sqlite3";
import type { FixtureMeta, ProjectRecord, ProjectScript } from "../fixtures/schema.js";
import type { ProjectShell } from "./rpcs.js";
import { ThreadStore } from "./thread-store.js";

type ProjectRow = Omit<ProjectRecord, "deleted_at">;

/** An event appended at run time (never written to the fixture). */
interface AppendedEvent {
  sequence: number;
  projectId: string;
  payloadBytes: number;
}

/** What replay of a range costs: events and stored payload bytes (UTF-8). */
export interface RangeCost {
  events: number;
  payloadBytes: number;
}

export class EventStore {
  readonly meta: FixtureMeta;
  /** The threads' events; they share this store's sequence. */
  readonly threads: ThreadStore;
  private readonly db: Database.Database;
  private latest: number;
  private pagesRead = 0;
  private readonly appended: AppendedEvent[] = [];
  /** Title/updatedAt changes made at run time, laid over the fixture's projection. */
  private readonly overrides = new Map<string, { title: string; updatedAt: string }>();
  private readonly byId: Database.Statement<[string], ProjectRow>;
  private readonly allRows: Database.Statement<[], ProjectRow>;
  private readonly touched: Database.Statement<[number], { stream_id: string; seq: number }>;
  private readonly cost: Database.Statement<[number], { events: number; bytes: number }>;
  private readonly storedSize: Database.Statement<[string], { bytes: number }>;

  constructor(db: Database.Database, meta: FixtureMeta) {
    this.db = db;
    this.meta = meta;
    const row = db.prepare("SELECT COALESCE(MAX(sequence), 0) AS latest FROM orchestration_events").get() as {
      latest: number;
    };
    this.latest = row.latest;
    this.threads = new ThreadStore(db, () => ++this.latest);
    this.byId = db.prepare(
      "SELECT project_id, title, workspace_root, scripts_json, created_at, updated_at FROM projection_projects WHERE project_id = ? AND deleted_at IS NULL",
    );
    this.allRows = db.prepare(
      "SELECT project_id, title, workspace_root, scripts_json, created_at, updated_at FROM projection_projects WHERE deleted_at IS NULL ORDER BY rowid",
    );
    this.touched = db.prepare(
      "SELECT stream_id, MAX(sequence) AS seq FROM orchestration_events WHERE sequence > ? AND aggregate_kind = 'project' GROUP BY stream_id",
    );
    // A project's stored text in bytes: what its shell encodes to, give or take the JSON keys.
    this.storedSize = db.prepare(
      "SELECT LENGTH(CAST(project_id AS BLOB)) + LENGTH(CAST(title AS BLOB)) + LENGTH(CAST(workspace_root AS BLOB)) + LENGTH(CAST(scripts_json AS BLOB)) + LENGTH(created_at) + LENGTH(updated_at) AS bytes FROM projection_projects WHERE project_id = ? AND deleted_at IS NULL",
    );
    this.cost = db.prepare(
      "SELECT COUNT(*) AS events, COALESCE(SUM(LENGTH(CAST(payload_json AS BLOB))), 0) AS bytes FROM orchestration_events WHERE sequence > ?",
    );
  }

  get latestSequence(): number {
    return this.latest;
  }

  /** All live projects, in creation order, each with its scripts. */
  snapshot(): ProjectShell[] {
    return this.allRows.all().map((r) => this.toShell(r));
  }

  project(projectId: string): ProjectShell | undefined {
    const row = this.byId.get(projectId);
    return row ? this.toShell(row) : undefined;
  }

  /** Events and stored payload bytes after `after` (fixture and appended). */
  rangeCost(after: number): RangeCost {
    const stored = this.cost.get(after) ?? { events: 0, bytes: 0 };
    let events = stored.events;
    let payloadBytes = stored.bytes;
    for (const e of this.appended) {
      if (e.sequence > after) {
        events += 1;
        payloadBytes += e.payloadBytes;
      }
    }
    return { events, payloadBytes };
  }

  /**
   * Replay after `after`, coalesced per project: each touched project once, with its latest shell,
   * at the sequence of its last event in the range, in sequence order.
   */
  replay(after: number): { sequence: number; project: ProjectShell }[] {
    const out: { sequence: number; project: ProjectShell }[] = [];
    for (const { projectId, sequence } of this.touchedAfter(after)) {
      const project = this.project(projectId);
      if (project) out.push({ sequence, project });
    }
    return out;
  }

  /** The projects touched after `after`, each once at the sequence of its last event there, in sequence order. */
  touchedAfter(after: number): { projectId: string; sequence: number }[] {
    const last = new Map<string, number>();
    for (const r of this.touched.all(after)) last.set(r.stream_id, r.seq);
    for (const e of this.appended) if (e.sequence > after) last.set(e.projectId, e.sequence);
    return [...last].map(([projectId, sequence]) => ({ projectId, sequence })).sort((a, b) => a.sequence - b.sequence);
  }

  /** Stored bytes of a project's shell (0 when it is gone), read without fetching its scripts into JS. */
  storedShellBytes(projectId: string): number {
    return this.storedSize.get(projectId)?.bytes ?? 0;
  }

  /** Replay pages read so far (server.getConfig reports it, so a test can see when pages are read). */
  get replayPagesRead(): number {
    return this.pagesRead;
  }

  notePageRead(): void {
    this.pagesRead += 1;
  }

  /** One project's stored shell, not yet decoded (the reference shape decodes it with its schema). */
  projectRow(projectId: string): unknown {
    return this.project(projectId);
  }

  /** Appends a `project.updated` event in memory; returns its sequence and the new shell. */
  updateProject(projectId: string, title: string, now: Date): { sequence: number; project: ProjectShell } | undefined {
    if (!this.byId.get(projectId)) return undefined;
    const updatedAt = now.toISOString();
    const payloadBytes = Buffer.byteLength(JSON.stringify({ projectId, title, updatedAt }));
    const sequence = ++this.latest;
    this.appended.push({ sequence, projectId, payloadBytes });
    this.overrides.set(projectId, { title, updatedAt });
    const project = this.project(projectId);
    if (!project) return undefined;
    return { sequence, project };
  }

  close(): void {
    this.db.close();
  }

  private toShell(r: ProjectRow): ProjectShell {
    const o = this.overrides.get(r.project_id);
    return {
      id: r.project_id,
      title: o ? o.title : r.title,
      workspaceRoot: r.workspace_root,
      scripts: JSON.parse(r.scripts_json) as ProjectScript[],
      createdAt: r.created_at,
      updatedAt: o ? o.updatedAt : r.updated_at,
    };
  }
}
