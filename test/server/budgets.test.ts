// Replay budgets (snapshot fallback), the cursor-ahead error and the batched first-chunk byte budget.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExitFor, RawConnection, subscribeThroughCompletion } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let db: string;
const started: RunningServer[] = [];
const cursor = CHUNK_FIXTURE.projects;
const latest = CHUNK_FIXTURE.projects + CHUNK_FIXTURE.events;

beforeAll(() => {
  fixtures = tempFixtures();
  db = fixtures.make("budgets", CHUNK_FIXTURE);
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  fixtures?.cleanup();
});

async function firstKinds(args: string[], payload: Record<string, unknown>) {
  // lean items: a resume opens with a "resume" item, so the first kind tells resume from fallback
  const server = await startServer(db, ["--item-shape", "lean", ...args]);
  try {
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    const result = await subscribeThroughCompletion(conn, "1", payload);
    await conn.close();
    return { server, ...result, first: result.items[0]?.kind };
  } finally {
    await server.stop();
  }
}

describe("replay budget", () => {
  it("replays when the gap is within --max-replay-events, falls back to a snapshot one event beyond", async () => {
    const gap = latest - cursor; // 1,000
    expect((await firstKinds(["--max-replay-events", String(gap)], { afterSequence: cursor })).first).toBe("resume");
    expect((await firstKinds(["--max-replay-events", String(gap - 1)], { afterSequence: cursor })).first).toBe(
      "snapshot",
    );
  });

  it("falls back to a snapshot when the stored payload bytes of the range exceed --max-replay-bytes", async () => {
    const { server } = await firstKinds([], {});
    const bytes = (server.ready.fixture as { postCursorPayloadBytes: number }).postCursorPayloadBytes;
    const within = await firstKinds(["--max-replay-bytes", String(bytes)], { afterSequence: cursor });
    expect(within.first).toBe("resume");
    const beyond = await firstKinds(["--max-replay-bytes", String(bytes - 1)], { afterSequence: cursor });
    expect(beyond.first).toBe("snapshot");
    expect(beyond.items.at(-1)).toEqual({ kind: "synchronized", sequence: latest });
  });

  it("afterSequence beyond the latest sequence: a failed Exit with a tagged error, no chunks", async () => {
    const server = await startServer(db, ["--item-shape", "lean"]);
    started.push(server);
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    conn.request("1", "orchestration.subscribeShell", { afterSequence: latest + 1, requestCompletionMarker: true });
    const exit = await conn.next(isExitFor("1"));
    expect(exit.exit).toMatchObject({
      _tag: "Failure",
      cause: { _tag: "Fail", error: { _tag: "CursorAheadError", afterSequence: latest + 1, latestSequence: latest } },
    });
    expect(conn.frames.filter((f) => f._tag === "Chunk")).toEqual([]);
    await conn.close();
  });
});

/** A batched catch-up from a server with --max-initial-chunk-bytes budget, with every raw frame's size. */
async function budgetedCatchUp(budget: number, payload: Record<string, unknown>) {
  const server = await startServer(db, [
    "--item-shape",
    "lean",
    "--delivery",
    "batched",
    "--max-initial-chunk-bytes",
    String(budget),
  ]);
  started.push(server);
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  const sizes: number[] = [];
  conn.ws.on("message", (data: Buffer) => sizes.push(data.length));
  const { chunks, items } = await subscribeThroughCompletion(conn, "1", payload);
  await conn.close();
  return { chunks, items, sizes };
}

describe("--max-initial-chunk-bytes (batched)", () => {
  it("splits the first chunk into frames within the budget, marker last", async () => {
    const budget = 64 * 1024;
    const { chunks, items, sizes } = await budgetedCatchUp(budget, { afterSequence: cursor });
    expect(chunks.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(budget);
    expect(items[0]?.kind).toBe("resume");
    expect(items.filter((i) => i.kind === "project.updated")).toHaveLength(CHUNK_FIXTURE.projects);
    expect(items.findIndex((i) => i.kind === "synchronized")).toBe(items.length - 1);
  });

  it("pages a snapshot so every raw frame stays within the budget, pages in order, marker last", async () => {
    const budget = 64 * 1024;
    const whole = await firstKinds(["--delivery", "batched"], {});
    const wholeProjects = (whole.items[0] as { projects: unknown[] }).projects;
    expect(whole.chunks).toHaveLength(1);
    expect(whole.items[0]).not.toHaveProperty("page");
    const { chunks, items, sizes } = await budgetedCatchUp(budget, {});
    expect(chunks.length).toBeGreaterThan(2);
    expect(sizes.length).toBeGreaterThanOrEqual(chunks.length);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(budget);
    const pages = items.filter((i) => i.kind === "snapshot") as { page: number; pages: number; projects: unknown[] }[];
    expect(pages.map((p) => [p.page, p.pages])).toEqual(pages.map((_, i) => [i + 1, pages.length]));
    expect(pages.flatMap((p) => p.projects)).toEqual(wholeProjects);
    expect(items.at(-1)).toEqual({ kind: "synchronized", sequence: latest });
  });

  it("without a budget the same catch-up is one chunk", async () => {
    const { chunks } = await firstKinds(["--delivery", "batched"], { afterSequence: cursor });
    expect(chunks).toHaveLength(1);
  });
});
