// bench:power's pure part: sizes as given, which verdicts count as detections and which as false
// alarms, the Wilson interval of a rate, and the table's rows.
import { describe, expect, it } from "vitest";
import type { CellVerdict } from "../../scripts/results/verdict-record.js";
import {
  type Kind,
  observationsOf,
  parseSizes,
  powerRows,
  powerTable,
  resolveSize,
  settingOf,
  wilson,
} from "../../scripts/selfbench/power-table.js";

const verdict = (metric: string, cell: string, v: CellVerdict["verdict"], undecided = false, median = 1): CellVerdict =>
  ({ metric, cell, verdict: v, guarded: true, undecided, median }) as unknown as CellVerdict;

const setting = (kind: Kind, size: number | null) => settingOf(kind, size, null);

describe("sizes", () => {
  it("parses absolute sizes and percents, and names the flag on a bad one", () => {
    expect(parseSizes("delays", "20,5%")).toEqual([{ absolute: 20 }, { percent: 5 }]);
    expect(parseSizes("holds", "")).toEqual([]);
    expect(() => parseSizes("holds", "4,x")).toThrow(/^--holds: "x" is not a size/);
    expect(() => parseSizes("delays", "-3")).toThrow(/--delays/);
  });
  it("makes a percent absolute against the null's baseline, and says what percent an absolute size is", () => {
    expect(resolveSize({ percent: 10 }, 250)).toEqual({ size: 25, percent: 10 });
    expect(resolveSize({ percent: 10 }, null)).toBeNull();
    expect(resolveSize({ absolute: 5 }, 50)).toEqual({ size: 5, percent: 10 });
    expect(resolveSize({ absolute: 5 }, null)).toEqual({ size: 5, percent: null });
  });
});

describe("observations", () => {
  it("counts the named cell of the injected metric as injected, every other cell as null", () => {
    const delay = setting("delay", 30);
    const obs = observationsOf(delay, [
      verdict("completionMs", "resume-many", "fail"),
      verdict("completionMs", "snapshot", "pass"),
      { ...verdict("firstChunkMs", "resume-many", "higher"), guarded: false },
    ]);
    expect(obs.map((o) => [o.cell, o.injected, o.outcome])).toEqual([
      ["resume-many", true, "fail"],
      ["snapshot", false, "pass"],
    ]);
    const hold = observationsOf(setting("hold", 8), [
      verdict("peakHeapBytes", "1024x1/memory", "noise", true),
      verdict("peakRssBytes", "1024x1/snapshot", "missing"),
    ]);
    expect(hold.map((o) => [o.injected, o.outcome])).toEqual([
      [true, "no-verdict"],
      [false, "no-verdict"],
    ]);
    // The null injects nothing anywhere.
    expect(observationsOf(setting("null", null), [verdict("completionMs", "resume-many", "fail")])[0]?.injected).toBe(
      false,
    );
  });

  it("gives per metric the false-alarm rate and the detection rate of each size", () => {
    const nul = setting("null", null);
    const d = setting("delay", 30);
    const obs = [
      ...observationsOf(nul, [
        verdict("completionMs", "resume-many", "fail"),
        verdict("completionMs", "snapshot", "pass"),
      ]),
      ...observationsOf(d, [
        verdict("completionMs", "resume-many", "fail", false, 1.061),
        verdict("completionMs", "snapshot", "pass"),
      ]),
      ...observationsOf(d, [
        verdict("completionMs", "resume-many", "pass", false, 1.024),
        verdict("completionMs", "snapshot", "pass", false, 0.98),
      ]),
    ];
    const rows = powerRows(obs, [nul, d]);
    expect(rows.map((r) => [r.metric, r.what, r.cells, r.fails])).toEqual([
      ["completionMs", "false alarms (no change in the cell)", 4, 1],
      ["completionMs", `detected: ${d.label}`, 2, 1],
    ]);
    // Beside each rate, what the change did: the lowest and highest median ratio of the cells judged.
    expect(powerTable(rows)[2]).toMatch(
      /^\| completionMs: false alarms .* \| 4 \| 1 \| 25% \(\d+%–\d+%\) \| 0 \| 0\.980–1\.000 \|$/,
    );
    expect(powerTable(rows)[3]).toMatch(/\| 2 \| 1 \| 50% .* \| 1\.024–1\.061 \|$/);
  });
});

describe("Wilson interval", () => {
  it("matches the textbook values and stays inside [0, 1]", () => {
    // 0 of 10: upper bound 0.2775 (e.g. Newcombe 1998, Stat Med 17, 857–872, table I)
    expect(wilson(0, 10).low).toBe(0);
    expect(wilson(0, 10).high).toBeCloseTo(0.2775, 3);
    const w = wilson(5, 10);
    expect(w.low).toBeCloseTo(0.2366, 3);
    expect(w.high).toBeCloseTo(0.7634, 3);
    expect(wilson(3, 3).high).toBe(1);
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });
});
