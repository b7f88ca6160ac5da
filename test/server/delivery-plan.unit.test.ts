// Pure: how each strategy cuts a catch-up into chunks (no sockets).
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import { describe, expect, it } from "vitest";
import { referenceSnapshotItems } from "../../server-under-test/catchup.js";
import {
  type CatchUp,
  CHUNK_ENVELOPE_BYTES,
  type PlannedChunk,
  pageSnapshot,
  planChunks as plan,
  projectedBytes,
  type ReplaySource,
  splitByBytes,
} from "../../server-under-test/delivery.js";
import { REFERENCE_GROUP_WINDOW } from "../../server-under-test/grouping.js";
import { streamReplay } from "../../server-under-test/replay-stream.js";
import type { LeanSnapshotItem, ShellItem } from "../../server-under-test/rpcs.js";

/** Every chunk's items in delivery order, streaming a planned replay in groups as the server does. */
async function read(chunks: PlannedChunk[]): Promise<ShellItem[][]> {
  const out: ShellItem[][] = [];
  for (const c of chunks) {
    if (Array.isArray(c)) out.push(c);
    else out.push(...(await groupsOf(c.replay)));
  }
  return out;
}
// The server's group size with a time window no test reaches: groups by count alone, whatever the
// machine's load (at 50 ms a loaded runner closed a group at a page boundary, 500 instead of 512).
const BY_COUNT = { ...REFERENCE_GROUP_WINDOW, windowMs: 60_000 };
const groupsOf = (source: ReplaySource) =>
  Effect.runPromise(
    Stream.runCollect(Stream.chunks(streamReplay(source, BY_COUNT))).pipe(
      Effect.map((groups) => Chunk.toReadonlyArray(groups).map((g) => [...Chunk.toReadonlyArray(g)])),
    ),
  );
const planChunks = (...args: Parameters<typeof plan>) => read(plan(...args));

const isLeanSnapshot = (i: ShellItem): i is LeanSnapshotItem => i.kind === "snapshot" && "projects" in i;

const project = (i: number, bytes = 10) => ({
  id: `p${i}`,
  title: `t${i}`,
  workspaceRoot: "/w",
  scripts: [{ id: "s", name: "n", command: "x".repeat(bytes), icon: "i", runOnWorktreeCreate: false }],
  createdAt: "c",
  updatedAt: "u",
});
const snapshot = (n: number): CatchUp => ({
  kind: "snapshot",
  sequence: 100,
  snapshot: { kind: "snapshot", snapshotSequence: 100, projects: Array.from({ length: n }, (_, i) => project(i)) },
});
const resume = (n: number): CatchUp => ({
  kind: "resume",
  sequence: 100 + n,
  resume: { kind: "resume", fromSequence: 100, toSequence: 100 + n },
  replay: Array.from(
    { length: n },
    (_, i): ShellItem => ({ kind: "project.updated", sequence: 101 + i, project: project(i) }),
  ),
});
const shape = (chunks: ShellItem[][]) => chunks.map((c) => c.map((i) => i.kind));
const marker = { requestCompletionMarker: true };

describe("legacy", () => {
  it("snapshot then marker: 2 chunks", async () => {
    expect(shape(await planChunks(snapshot(3), { strategy: "legacy", ...marker }))).toEqual([
      ["snapshot"],
      ["synchronized"],
    ]);
  });
  it.each([
    [0, 2],
    [1, 3],
    [REFERENCE_GROUP_WINDOW.maxItems, 3],
    [REFERENCE_GROUP_WINDOW.maxItems + 1, 4],
    [1000, 4],
  ])("resume with %i replayed items: %i chunks", async (n, count) => {
    const chunks = await planChunks(resume(n), { strategy: "legacy", ...marker });
    expect(chunks).toHaveLength(count);
    expect(chunks.every((c) => c.length <= REFERENCE_GROUP_WINDOW.maxItems)).toBe(true);
    expect(chunks.at(-1)).toEqual([{ kind: "synchronized", sequence: 100 + n }]);
  });
  it("no marker requested: no marker sent", async () => {
    expect(shape(await planChunks(resume(1), { strategy: "legacy", requestCompletionMarker: false }))).toEqual([
      ["resume"],
      ["project.updated"],
    ]);
  });
});

describe("batched", () => {
  it.each([0, 1, 1000])("resume with %i items and the marker: one chunk, marker last", async (n) => {
    const chunks = await planChunks(resume(n), { strategy: "batched", ...marker });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toHaveLength(n + 2);
    expect(chunks[0]?.at(-1)?.kind).toBe("synchronized");
  });
  it("snapshot and marker: one chunk", async () => {
    expect(shape(await planChunks(snapshot(3), { strategy: "batched", ...marker }))).toEqual([
      ["snapshot", "synchronized"],
    ]);
  });
  it("without the marker it is exactly legacy", async () => {
    for (const c of [snapshot(2), resume(0), resume(1), resume(1000)]) {
      const options = { requestCompletionMarker: false };
      expect(await planChunks(c, { strategy: "batched", ...options })).toEqual(
        await planChunks(c, { strategy: "legacy", ...options }),
      );
    }
  });
  it("--max-initial-chunk-bytes splits within the budget, in order, marker last", async () => {
    const catchUp = resume(50);
    const budget = 2000;
    const chunks = await planChunks(catchUp, { strategy: "batched", ...marker, maxInitialChunkBytes: budget });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      const frame = JSON.stringify({ _tag: "Chunk", requestId: "18446744073709551615", values: c });
      expect(Buffer.byteLength(frame)).toBeLessThanOrEqual(budget);
    }
    const flat = chunks.flat();
    expect(flat).toEqual((await planChunks(catchUp, { strategy: "batched", ...marker }))[0]);
  });
});

describe("--max-initial-chunk-bytes with a snapshot", () => {
  const frameBytes = (c: ShellItem[]) =>
    Buffer.byteLength(JSON.stringify({ _tag: "Chunk", requestId: "18446744073709551615", values: c }));
  it("pages the snapshot: every frame within the budget, pages 1..n in order, projects in order, marker last", async () => {
    const catchUp = snapshot(50);
    const budget = 2000;
    const chunks = await planChunks(catchUp, { strategy: "batched", ...marker, maxInitialChunkBytes: budget });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(frameBytes(c)).toBeLessThanOrEqual(budget);
    const items = chunks.flat();
    expect(items.at(-1)).toEqual({ kind: "synchronized", sequence: 100 });
    const pages = items.filter(isLeanSnapshot);
    expect(pages.map((p) => [p.page, p.pages, p.snapshotSequence])).toEqual(
      pages.map((_, i) => [i + 1, pages.length, 100]),
    );
    expect(pages.flatMap((p) => p.projects)).toEqual(
      catchUp.kind === "snapshot" && isLeanSnapshot(catchUp.snapshot) ? catchUp.snapshot.projects : [],
    );
  });
  it("without a budget the snapshot stays one item without page fields", async () => {
    const [first] = await planChunks(snapshot(50), { strategy: "batched", ...marker });
    expect(first?.[0]).not.toHaveProperty("page");
    expect(first?.[0]).not.toHaveProperty("pages");
  });
  it("a project larger than the budget gets a page of its own; an empty snapshot is one page", () => {
    const big = project(1, 5000);
    const pages = pageSnapshot(
      { kind: "snapshot", snapshotSequence: 7, projects: [project(0), big, project(2)] },
      CHUNK_ENVELOPE_BYTES + 400,
    );
    expect(pages.map((p) => (isLeanSnapshot(p) ? [p.projects.map((x) => x.id), p.page, p.pages] : p))).toEqual([
      [["p0"], 1, 3],
      [["p1"], 2, 3],
      [["p2"], 3, 3],
    ]);
    expect(pageSnapshot({ kind: "snapshot", snapshotSequence: 7, projects: [] }, 100)).toEqual([
      { kind: "snapshot", snapshotSequence: 7, projects: [], page: 1, pages: 1 },
    ]);
  });
});

describe("lazy replay pages", () => {
  /** A replay of n items whose page reads and item reads are logged as [from, to). */
  const counted = (n: number) => {
    const pages: [number, number][] = [];
    const reads: [number, number][] = [];
    const source: ReplaySource = {
      size: n,
      readPage: (from, to) => {
        pages.push([from, to]);
      },
      read: (from, to) => {
        reads.push([from, to]);
        return Array.from(
          { length: to - from },
          (_, i): ShellItem => ({ kind: "project.updated", sequence: 101 + from + i, project: project(from + i) }),
        );
      },
    };
    const catchUp: CatchUp = {
      kind: "resume",
      sequence: 100 + n,
      resume: { kind: "resume", fromSequence: 100, toSequence: 100 + n },
      replay: source,
    };
    return { pages, reads, catchUp };
  };
  it("legacy plans the replay unread; streaming it reads pages of 500 and sends groups of up to 512", async () => {
    const { pages, reads, catchUp } = counted(1000);
    const chunks = plan(catchUp, { strategy: "legacy", ...marker });
    expect(chunks).toHaveLength(3);
    expect([pages, reads]).toEqual([[], []]);
    const replay = chunks[1];
    const groups = replay !== undefined && !Array.isArray(replay) ? await groupsOf(replay.replay) : [];
    expect(groups.map((g) => g.length)).toEqual([512, 488]);
    expect(pages).toEqual([
      [0, 500],
      [500, 1000],
    ]);
    // each group's items are fetched once, when the group goes out
    expect(reads).toEqual([
      [0, 512],
      [512, 1000],
    ]);
  });
  it("batched without the marker keeps the lazy legacy path", () => {
    const { pages, reads, catchUp } = counted(600);
    // the resume metadata, then the replay to stream (no marker)
    expect(plan(catchUp, { strategy: "batched", requestCompletionMarker: false })).toHaveLength(2);
    expect([pages, reads]).toEqual([[], []]);
  });
  it("batched with the marker reads the whole replay at once, into the one chunk", () => {
    const { pages, reads, catchUp } = counted(1000);
    const chunks = plan(catchUp, { strategy: "batched", ...marker });
    expect(pages).toEqual([
      [0, 500],
      [500, 1000],
    ]);
    expect(reads).toEqual([[0, 1000]]);
    expect(chunks).toHaveLength(1);
    expect(Array.isArray(chunks[0])).toBe(true);
  });
});

describe("--max-projected-bytes", () => {
  const withProjection = (n: number, projected: number): CatchUp => {
    const items = Array.from(
      { length: n },
      (_, i): ShellItem => ({ kind: "project.updated", sequence: 101 + i, project: project(i) }),
    );
    return {
      kind: "resume",
      sequence: 100 + n,
      resume: { kind: "resume", fromSequence: 100, toSequence: 100 + n },
      replay: { size: n, read: (from, to) => items.slice(from, to), projectedBytes: () => projected },
    };
  };
  it("a marked batched resume projected beyond the budget takes the streaming path, marker last", async () => {
    const chunks = await planChunks(withProjection(600, 5000), {
      strategy: "batched",
      ...marker,
      maxProjectedBytes: 4999,
    });
    expect(chunks.map((c) => c.length)).toEqual([1, 512, 88, 1]);
  });
  it("within the budget (or without one) it stays one chunk; snapshots are never affected", async () => {
    expect(
      await planChunks(withProjection(600, 5000), { strategy: "batched", ...marker, maxProjectedBytes: 5000 }),
    ).toHaveLength(1);
    expect(await planChunks(withProjection(600, 5000), { strategy: "batched", ...marker })).toHaveLength(1);
    expect(await planChunks(snapshot(600), { strategy: "batched", ...marker, maxProjectedBytes: 0 })).toHaveLength(1);
  });
  it("projects an in-memory replay by encoding it", () => {
    const items: ShellItem[] = [{ kind: "synchronized", sequence: 1 }];
    expect(projectedBytes(items)).toBe(Buffer.byteLength(JSON.stringify(items[0])) + 1);
  });
});

describe("reference item shapes", () => {
  const projects = Array.from({ length: 3 }, (_, i) => project(i));
  const items = referenceSnapshotItems(projects, 100);
  const cold: CatchUp = {
    kind: "snapshot",
    sequence: 100,
    snapshot: items.authoritative,
    enrichment: items.enrichment,
  };
  it("a cold snapshot is the authoritative item, then the same-sequence enrichment item with every project", () => {
    expect(items.authoritative).toEqual({
      kind: "snapshot",
      snapshot: { schemaVersion: 1, snapshotSequence: 100, projects, threads: [], archivedThreads: [] },
    });
    expect(items.enrichment).toEqual({
      kind: "snapshot",
      snapshot: { schemaVersion: 1, snapshotSequence: 100, projects, threads: [], archivedThreads: [] },
      resolvedRepositoryIdentityRoots: ["/w"],
    });
  });
  it("both snapshot items travel in the first chunk: legacy 2 chunks, batched 1", async () => {
    expect(shape(await planChunks(cold, { strategy: "legacy", ...marker }))).toEqual([
      ["snapshot", "snapshot"],
      ["synchronized"],
    ]);
    expect(shape(await planChunks(cold, { strategy: "batched", ...marker }))).toEqual([
      ["snapshot", "snapshot", "synchronized"],
    ]);
  });
  it("with --max-initial-chunk-bytes the two items are split, not paged", async () => {
    const chunks = await planChunks(cold, {
      strategy: "batched",
      ...marker,
      maxInitialChunkBytes: CHUNK_ENVELOPE_BYTES + 100,
    });
    expect(chunks.flat()).toEqual([items.authoritative, items.enrichment, { kind: "synchronized", sequence: 100 }]);
  });
});

describe("splitByBytes", () => {
  it("gives an item larger than the budget a chunk of its own", () => {
    const big: ShellItem = { kind: "project.updated", sequence: 2, project: project(2, 5000) };
    const small: ShellItem = { kind: "synchronized", sequence: 3 };
    expect(splitByBytes([small, big, small], CHUNK_ENVELOPE_BYTES + 100)).toEqual([[small], [big], [small]]);
  });
  it("keeps everything in one chunk when it fits", () => {
    const items: ShellItem[] = [{ kind: "synchronized", sequence: 1 }];
    expect(splitByBytes(items, 1_000_000)).toEqual([items]);
  });
});
