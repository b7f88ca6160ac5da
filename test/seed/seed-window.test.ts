// End to end: a seed with 16 writes in flight stores what the fixture says, in the order it needs.
// notes-server (NOTES_SHUFFLE=1) commits the writes in flight at once out of the order they were sent,
// as a server that commits concurrently does; its store (an append-only log) is read back after the
// seed: every project's create comes before its updates, and the resume cursor splits the creates
// from the updates exactly. A binding that declares order "strict" is written one at a time.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { FixtureEvent } from "../../bindings/binding.js";
import { generateFixture } from "../../fixtures/generate.js";
import { seedOnce } from "../../scripts/bench/seed/seed-once.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { fixtureEvents } from "../../scripts/seed/fixture-events.js";
import { ROOT } from "../bench/bench-child.js";
import { BINDING, start } from "./support.js";

vi.setConfig({ testTimeout: 120_000 });

const dir = mkdtempSync(join(tmpdir(), "seed-window-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = join(dir, "window.sqlite");
// 12 projects, then 360 title updates after the cursor: a project's next update comes 12 events
// later, inside a window of 16.
generateFixture({
  projects: 12,
  scriptBytesMin: 256,
  scriptBytesMax: 256,
  scriptsPerProject: 1,
  events: 360,
  seed: 7,
  out: fixture,
});

interface Stored {
  op: "put" | "rename";
  seq: number;
  id?: string;
  title: string;
  project?: { id: string; title: string };
}

/** Seeds notes-server (commits shuffled) with `window` writes in flight; its log, and the seed's record. */
async function seed(window: number, binding = BINDING) {
  const config = resolveConfig({
    target: [`a=env NOTES_SHUFFLE=1 ${start()}`],
    binding,
    "seed-window": String(window),
    ...{ "subscribe-tag": "Notes.Watch", "subscribe-payload": '{"since":{after}}', completion: "type=ready" },
    ...{ "probe-tag": "Notes.Ping", "url-path": "/rpc" },
  });
  const lines: string[] = [];
  const r = await seedOnce(config, fixture, { dir, root: ROOT }, (l) => lines.push(l));
  const log = readFileSync(join(r.stateDir, "notes.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Stored);
  return { r, log, lines };
}

const events = [...fixtureEvents(fixture)];
const idOf = (e: FixtureEvent) => e.payload.projectId as string;
/** Each project's titles in the order the fixture sets them. */
const fixtureTitles = (): Map<string, string[]> => {
  const m = new Map<string, string[]>();
  for (const e of events) m.set(idOf(e), [...(m.get(idOf(e)) ?? []), e.payload.title as string]);
  return m;
};
/** Each project's titles in the order the server stored them. */
const storedTitles = (log: Stored[]): Map<string, string[]> => {
  const m = new Map<string, string[]>();
  for (const c of log) {
    const id = c.op === "put" ? (c.project?.id as string) : (c.id as string);
    m.set(id, [...(m.get(id) ?? []), c.op === "put" ? (c.project?.title as string) : c.title]);
  }
  return m;
};

describe("a seed with writes in flight", () => {
  it("stores every project's writes in the fixture's order, and the cursor splits creates from updates exactly", async () => {
    const { r, log } = await seed(16);
    expect(r.record).toMatchObject({ window: 16, events: 372, cursorSequence: 12, latestSequence: 372 });
    expect(log.map((c) => c.seq)).toEqual(events.map((_, i) => i + 1));
    // The window was real: the server stored some creates in another order than the fixture's.
    const putOrder = log.filter((c) => c.op === "put").map((c) => c.project?.id);
    const fixtureOrder = events.filter((e) => e.type === "project.created").map(idOf);
    expect(putOrder).not.toEqual(fixtureOrder);
    expect(storedTitles(log)).toEqual(fixtureTitles());
    // Exactly the creates at or before the server's cursor, exactly the updates after it.
    expect(log.filter((c) => c.seq <= r.sequences.cursor).every((c) => c.op === "put")).toBe(true);
    expect(log.filter((c) => c.seq > r.sequences.cursor).every((c) => c.op === "rename")).toBe(true);
    // The seed time, split: nothing negative, and the parts add up to it.
    const { seedMs, startStopMs = -1, answeringMs = -1, harnessMs = -1 } = r.record;
    expect(Math.min(startStopMs, answeringMs, harnessMs)).toBeGreaterThan(0);
    expect(startStopMs + answeringMs + harnessMs).toBeCloseTo(seedMs, 3);
  });

  it('writes one at a time for a binding that declares order "strict"', async () => {
    const strict = join(dir, "strict-binding.mjs");
    writeFileSync(
      strict,
      `import notes from ${JSON.stringify(BINDING)};\nexport default { ...notes, order: "strict" };\n`,
    );
    const { r, log } = await seed(16, strict);
    expect(r.record.window).toBe(1);
    expect(log.map((c) => (c.op === "put" ? c.project?.id : c.id))).toEqual(events.map(idOf));
  });
});
