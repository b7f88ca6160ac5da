// Storm cells are paired across trials (trial t of the baseline with trial t of the candidate, per
// cell) and judged per cell by the guard; a pair that does not count is named, never dropped; a cell
// with missing pairs gets no verdict unless --allow-missing; the A/A copy gives each cell its band.
import { describe, expect, it } from "vitest";
import { stormMarkdown } from "../../scripts/report/storm-section.js";
import { LEAK_METRIC } from "../../scripts/results/metric-names.js";
import type { Results } from "../../scripts/results/schema.js";
import type { StormRow } from "../../scripts/results/storm-record.js";
import { stormRow } from "../../scripts/storm/row.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { decideCell, guardFromConfig } from "../../scripts/verdicts/cells.js";
import { defaultGuard, judge, runMatrices } from "../../scripts/verdicts/guard-verdict.js";
import { runStormVerdicts, stormCellKey, stormPairs, stormVerdicts } from "../../scripts/verdicts/storm-verdict.js";

const MIB = 1024 * 1024;
const roles = { baseline: "legacy", candidate: "batched" };

function row(
  variant: string,
  trial: number,
  rssMib: number,
  p99: number,
  o: { clients?: number; ok?: number; aa?: boolean; scriptBytes?: number } = {},
): StormRow {
  const clients = o.clients ?? 100;
  const ok = o.ok ?? clients;
  return stormRow(
    {
      variant,
      clients,
      scriptBytes: o.scriptBytes ?? 1024,
      rampMs: 0,
      resumeRatio: 1,
      trial,
      ...(o.aa ? { aa: true } : {}),
    },
    {
      clients,
      ok,
      failed: clients - ok,
      failures: { "upgrade-refused": clients - ok, timeout: 0, "closed-early": 0, other: 0 },
      completionMsP50: p99 / 2,
      completionMsP99: p99,
      completionMsMax: p99,
      allCaughtUpMs: ok === clients ? p99 + 10 : null,
    },
    { peakRssBytes: rssMib * MIB, hwmRssBytes: rssMib * MIB, peakHeapBytes: rssMib * MIB },
  );
}

/** Three trials where the candidate's RSS is `factor` × the baseline's, with a little noise. */
function trials(factor: number, n = 3, base = 1000): StormRow[] {
  return Array.from({ length: n }, (_, i) => [
    row("legacy", i + 1, base + i * 7, 2000 + i * 11),
    row("batched", i + 1, (base + i * 7) * factor, (2000 + i * 11) * 0.9),
  ]).flat();
}

function results(storm: StormRow[], config: Record<string, unknown> = {}): Results {
  return {
    schema: "catchup-bench/results@1",
    run: { config: { stormTrials: 3, ...config } },
    variants: [
      { name: "legacy", role: "baseline" },
      { name: "batched", role: "candidate" },
    ],
    latency: [],
    memory: [],
    storm,
  } as unknown as Results;
}

describe("stormPairs", () => {
  it("pairs trial t with trial t and gives candidate/baseline ratios", () => {
    const rows = [
      row("legacy", 1, 100, 10),
      row("batched", 1, 150, 5),
      row("legacy", 2, 200, 10),
      row("batched", 2, 100, 20),
    ];
    const p = stormPairs(rows, "1024x100", roles, "stormPeakRssBytes", 2);
    expect(p.ratios).toEqual([1.5, 0.5]);
    expect(p.trials).toEqual([1, 2]);
    expect(p.missing).toEqual([]);
  });

  it("names the pair of a storm where a client failed, and a row that is absent", () => {
    const rows = [
      row("legacy", 1, 100, 10, { ok: 99 }),
      row("batched", 1, 100, 10),
      row("legacy", 2, 100, 10),
      row("legacy", 3, 100, 10),
      row("batched", 3, 110, 10),
    ];
    const p = stormPairs(rows, "1024x100", roles, "stormCompletionMsP99", 3);
    expect(p.trials).toEqual([3]);
    expect(p.missing.map((m) => m.reason)).toEqual([
      "trial 1: legacy 99/100 ok (1 upgrade-refused)",
      "trial 2: batched has no row",
    ]);
  });

  it("keeps cells apart: a pair never crosses script sizes or client counts", () => {
    const rows = [row("legacy", 1, 100, 10), row("batched", 1, 300, 10, { scriptBytes: 8192 })];
    expect(stormPairs(rows, "1024x100", roles, "stormPeakRssBytes", 1).ratios).toEqual([]);
    expect(stormCellKey(rows[1] as StormRow)).toBe("8192x100");
  });
});

describe("stormVerdicts and the guard", () => {
  // minPairs 1: these tests are about the ceiling rule on few storm trials (the minimum has its own test).
  const guard = (metrics: string[], extra = {}) => ({ ceiling: 1.03, metrics, minPairs: 1, ...extra });

  it("fails the cell whose candidate peak RSS is above the ceiling, passes the other, per cell", () => {
    const small = trials(1.0);
    const large = trials(1.5, 3, 3000).map((r) => ({ ...r, clients: 500, ok: 500 }));
    const decision = judge(results([...small, ...large]), guard(["stormPeakRssBytes"]));
    expect(decision.failed).toEqual(["stormPeakRssBytes 1024x500"]);
    expect(decision.exitCode).toBe(EXIT.regression);
    expect(decision.lines.some((l) => l.startsWith("stormPeakRssBytes 1024x100:") && l.includes("PASS"))).toBe(true);
  });

  it("judges completion p99 on its own figure (lower for the candidate here)", () => {
    const v = stormVerdicts(trials(1.5), roles, {
      metrics: ["stormCompletionMsP99"],
      guard: guard(["stormCompletionMsP99"]),
      planned: 3,
      aa: null,
    });
    expect(v).toHaveLength(1);
    expect(v[0]?.median).toBeCloseTo(0.9, 6);
    expect(v[0]?.verdict).toBe("pass");
  });

  it("gives no verdict (exit 3) to a cell with a missing pair, and says which and why", () => {
    const rows = trials(1.0).map((r) => (r.variant === "legacy" && r.trial === 2 ? { ...r, ok: 99, failed: 1 } : r));
    const decision = judge(results(rows), guard(["stormPeakRssBytes"]));
    expect(decision.exitCode).toBe(EXIT.noResult);
    expect(decision.undecided).toEqual(["stormPeakRssBytes 1024x100"]);
    expect(decision.lines[0]).toContain("2 of 3 planned pairs ok: MISSING");
    expect(decision.lines[0]).toContain("trial 2: legacy 99/100 ok");
    // --allow-missing judges the pairs there are, and still names the one that did not count.
    const allowed = judge(results(rows), guard(["stormPeakRssBytes"], { allowMissing: true }));
    expect(allowed.exitCode).toBe(EXIT.ok);
    expect(allowed.lines[0]).toContain("trial 2: legacy 99/100 ok");
  });

  it("counts a planned trial that never ran as missing", () => {
    const rows = trials(1.0, 2);
    const decision = judge(results(rows, { stormTrials: 3 }), guard(["stormPeakRssBytes"]));
    expect(decision.exitCode).toBe(EXIT.noResult);
    expect(decision.lines[0]).toContain("trial 3: legacy has no row; batched has no row");
  });

  it("takes the A/A band from the baseline's copy: a ratio above the ceiling inside the band has no verdict", () => {
    // Candidate 5% above; the A/A copy swings ±10% around the baseline: no verdict either way.
    const rows = [
      ...trials(1.05),
      row("A2", 1, 1100, 2000, { aa: true }),
      row("A2", 2, 907 * 0.9, 2011, { aa: true }),
      row("A2", 3, 1014 * 1.1, 2022, { aa: true }),
    ];
    const v = stormVerdicts(rows, roles, {
      metrics: ["stormPeakRssBytes"],
      guard: guard(["stormPeakRssBytes"]),
      planned: 3,
      aa: "A2",
    });
    expect(v[0]?.aaHigh).not.toBeNull();
    expect(v[0]?.undecided).toBe(true);
    const without = stormVerdicts(trials(1.05), roles, {
      metrics: ["stormPeakRssBytes"],
      guard: guard(["stormPeakRssBytes"]),
      planned: 3,
      aa: null,
    });
    expect(without[0]?.verdict).toBe("fail");
  });

  it("reports no storm cell as MISSING when a storm metric is guarded", () => {
    const decision = judge(results([]), guard(["stormCompletionMsP99"]));
    expect(decision.undecided).toEqual(["stormCompletionMsP99"]);
    expect(decision.lines[0]).toBe("stormCompletionMsP99: no cell of this run measures it: MISSING");
  });

  it("shows the paired result and the verdict per cell in report.md, missing pairs included", () => {
    const rows = trials(1.5).map((r) => (r.variant === "batched" && r.trial === 3 ? { ...r, ok: 98, failed: 2 } : r));
    const verdicts = stormVerdicts(rows, roles, {
      metrics: ["stormPeakRssBytes"],
      guard: guard(["stormPeakRssBytes"], { allowMissing: true }),
      planned: 3,
      aa: null,
    });
    const md = stormMarkdown(rows, roles, verdicts).join("\n");
    expect(md).toContain("### Storm cells paired across trials");
    expect(md).toMatch(/\| 1024x100 \| peak RSS \(stormPeakRssBytes\), guarded \| 2\/3 \| 1\.500/);
    expect(md).toContain("FAIL");
    expect(md).toContain("trial 3: batched 98/100 ok");
  });
});

describe("storm verdicts kept in results.json", () => {
  it("has one entry per storm cell and default figure, shaped like a memory cell's, missing pairs named", () => {
    const rows = trials(1.5).map((r) => (r.variant === "batched" && r.trial === 3 ? { ...r, ok: 98, failed: 2 } : r));
    const run = results(rows, {
      ceiling: 1.03,
      guard: ["stormPeakRssBytes", "stormCompletionMsP99"],
      guardMinPairs: 1,
    });
    const stored = runStormVerdicts(run, guardFromConfig(run.run.config));
    expect(stored.map((v) => `${v.metric} ${v.cell} ${v.verdict}`)).toEqual([
      "stormPeakRssBytes 1024x100 missing",
      "stormCompletionMsP99 1024x100 missing",
    ]);
    const memoryLike = decideCell(
      { metric: "peakRssBytes", cell: "1024x100/memory", summary: null, plannedPairs: 3, band: null },
      null,
    );
    for (const v of stored) {
      expect(Object.keys(v).sort()).toEqual([...Object.keys(memoryLike), "missing"].sort());
      expect(v).toMatchObject({ guarded: true, pairs: 2, plannedPairs: 3 });
      expect(v.missing).toEqual([{ trial: 3, reason: "trial 3: batched 98/100 ok" }]);
    }
    // Without a ceiling the default figures are still judged, open verdicts like the other cells'.
    const open = runStormVerdicts(results(trials(1.5)), null);
    expect(open.map((v) => `${v.metric} ${v.verdict} ${v.guarded}`)).toEqual([
      "stormPeakRssBytes higher false",
      "stormCompletionMsP99 lower false",
    ]);
  });

  it("lets report --ceiling judge the parts the run measured, as bench chose its default guard", () => {
    const stormOnly = results(trials(1.0), { latency: false, memory: false, leakCycles: 0, stormClients: [100] });
    expect(defaultGuard(runMatrices(stormOnly))).toEqual(["stormPeakRssBytes", "stormCompletionMsP99"]);
    const leak = results([], { latency: true, memory: false, leakCycles: 5, stormClients: [] });
    expect(defaultGuard(runMatrices(leak))).toEqual(["completionMs", LEAK_METRIC]);
    // A run without the switches recorded: latency and memory, and the parts it has rows for.
    expect(defaultGuard(runMatrices(results(trials(1.0))))).toEqual([
      "completionMs",
      "peakHeapBytes",
      "stormPeakRssBytes",
      "stormCompletionMsP99",
    ]);
  });
});
