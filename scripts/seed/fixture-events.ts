// The fixture as a binding sees it: its event log in sequence order, and what its projection holds
// (the figures the seeded server's own snapshot must match).

import type { FixtureEvent } from "../../bindings/binding.js";
import { openFixture } from "../../fixtures/meta.js";
import type { EventRecord, ProjectScript } from "../../fixtures/schema.js";

/** The fixture's events in sequence order (read lazily: a fixture of 8 KiB scripts is tens of MiB). */
export function* fixtureEvents(path: string): Generator<FixtureEvent> {
  const db = openFixture(path);
  try {
    const rows = db.prepare("SELECT * FROM orchestration_events ORDER BY sequence").iterate() as Iterable<EventRecord>;
    for (const r of rows) {
      yield {
        sequence: r.sequence,
        type: r.event_type,
        aggregateKind: r.aggregate_kind,
        streamId: r.stream_id,
        occurredAt: r.occurred_at,
        payload: JSON.parse(r.payload_json) as Record<string, unknown>,
        metadata: JSON.parse(r.metadata_json) as Record<string, unknown>,
      };
    }
  } finally {
    db.close();
  }
}

/** Events a binding writes: those of its aggregate kinds. */
export function writtenEventCount(path: string, kinds: readonly string[]): number {
  const db = openFixture(path);
  try {
    const counts = db
      .prepare("SELECT aggregate_kind AS kind, COUNT(*) AS n FROM orchestration_events GROUP BY aggregate_kind")
      .all() as { kind: string; n: number }[];
    return counts.filter((c) => kinds.includes(c.kind)).reduce((sum, c) => sum + c.n, 0);
  } finally {
    db.close();
  }
}

/** What the fixture's projection holds: live projects, and the UTF-8 bytes of their script commands. */
export function fixtureHolds(path: string): { projects: number; scriptBytes: number } {
  const db = openFixture(path);
  try {
    const rows = db.prepare("SELECT scripts_json FROM projection_projects WHERE deleted_at IS NULL").all() as {
      scripts_json: string;
    }[];
    let scriptBytes = 0;
    for (const r of rows) {
      for (const s of JSON.parse(r.scripts_json) as ProjectScript[]) scriptBytes += Buffer.byteLength(s.command);
    }
    return { projects: rows.length, scriptBytes };
  } finally {
    db.close();
  }
}
