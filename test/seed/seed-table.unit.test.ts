// The report's Seeding table says how much of each seed was the server's: its start and stop, the
// time it had writes to answer, and the rest (the harness's and the binding's own work). Read by
// column name.
import { describe, expect, it } from "vitest";
import type { ReportModel } from "../../scripts/report/model.js";
import { seedCells } from "../../scripts/report/table-data.js";
import type { SeedRecord } from "../../scripts/results/schema.js";

const record = (over: Partial<SeedRecord>): SeedRecord & { variant: string } => ({
  variant: "a",
  fixture: "small.sqlite",
  binding: "notes",
  bindingSha256: "0".repeat(64),
  events: 2000,
  seedMs: 3000,
  eventsPerSecond: 1000,
  templateBytes: 1 << 20,
  cursorSequence: 1000,
  latestSequence: 2000,
  cached: false,
  ...over,
});

/** Each row as {column: cell}. */
function rowsByColumn(seeds: (SeedRecord & { variant: string })[]): Record<string, string>[] {
  const cells = seedCells({ seeds } as unknown as ReportModel);
  if (!cells) throw new Error("no Seeding table");
  return cells.rows.map((row) => Object.fromEntries(cells.header.map((h, i) => [h, row[i] as string])));
}

describe("the Seeding table", () => {
  it("splits the seed time into the server's start and stop, its answering, and the harness", () => {
    const [row] = rowsByColumn([
      record({ window: 16, startStopMs: 600, answeringMs: 1900, harnessMs: 500, eventsPerSecond: 1052.4 }),
    ]);
    expect(row).toMatchObject({
      "seed time (s)": "3.0",
      "writes in flight": "16",
      "server start+stop (s)": "0.6",
      "server answering (s)": "1.9",
      "harness (s)": "0.5",
      "events/s": "1052",
    });
  });

  it("shows a dash where an older run recorded no split", () => {
    const [row] = rowsByColumn([record({})]);
    expect(row).toMatchObject({
      "writes in flight": "–",
      "server start+stop (s)": "–",
      "server answering (s)": "–",
      "harness (s)": "–",
    });
  });
});
