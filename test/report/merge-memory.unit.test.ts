// The memory part of a merged k6 report, pure: an agent's samples file read into a timeline (a torn
// last line left out and counted), the runners' wall-clock marks combined and placed on the agent's
// clock, the windows between them and their peaks, the figures, and inert rendering.
import { describe, expect, it } from "vitest";
import { phasesFromSummary } from "../../scenarios/lib/phase-marks.js";
import {
  memoryFigures,
  mergeMemory,
  parseAgentSamples,
  phaseWindows,
  runPhases,
} from "../../scripts/report/merge/agent-memory.js";
import { renderMemoryHtml, renderMemoryMarkdown } from "../../scripts/report/merge/agent-memory-render.js";
import { MergeInputError, type NamedSummary, type RunnerSummary } from "../../scripts/report/merge/merged-report.js";

const WALL0 = 1_800_000_000_000;
const line = (o: Record<string, unknown>) => JSON.stringify({ ...o, wall: WALL0 + (o.t as number) });

function agentFile(): string {
  const out = [line({ t: 0, phase: "agent", pid: 42, host: "h", heap: true })];
  // RSS 100 + t/10 up to t = 500, then falling; heap peaks at t = 250.
  for (let t = 10; t <= 1000; t += 10) {
    out.push(line({ t, rss: t <= 500 ? 100 + t / 10 : 150 - (t - 500) / 10 }));
    out.push(line({ t: t + 1, heapUsed: t === 250 ? 999 : 50, heapTotal: 2000 }));
  }
  out.push(line({ t: 5, hwm: 120, cpuMs: 1000 }), line({ t: 995, hwm: 140, cpuMs: 1250 }));
  out.push(line({ t: 1002, phase: "gc", heapUsed: 40, reason: "gc-at-end" }));
  out.push(line({ t: 1003, phase: "end", reason: "SIGINT", hwmRssBytes: 150 }));
  return `${out.join("\n")}\n{"t":1004,"rss":12`; // torn by a SIGKILL mid-write
}

const summary = (phases: RunnerSummary["phases"]): RunnerSummary => ({
  schema: "catchup-bench/k6-summary@1",
  scenario: "scaleout",
  sessions: 2,
  rows: [],
  figures: { completionMs: null, probeMs: null, errors: 0 },
  phases,
});

describe("agent samples and runner marks", () => {
  it("reads the timeline, leaving out and counting a torn last line", () => {
    const a = parseAgentSamples("agent.jsonl", agentFile());
    expect(a.badLines).toBe(1);
    expect(a.rss).toHaveLength(100);
    expect(a.wallAtZero).toBe(WALL0);
    const f = memoryFigures(a);
    expect(f).toMatchObject({
      peakRssBytes: 150,
      peakHeapBytes: 999,
      hwmRssBytes: 150,
      postGcHeapBytes: 40,
      cpuMs: 250,
    });
  });

  it("refuses a file without the agent line", () => {
    expect(() => parseAgentSamples("x.jsonl", `${line({ t: 1, rss: 5 })}\n`)).toThrow(MergeInputError);
  });

  it("counts a line with a value that is no reading (1e400, negative, out of range) as bad, never rendering Infinity or NaN", () => {
    const hostile = [
      '{"t":1e400,"rss":5,"wall":1800000000000}',
      `{"t":20,"rss":-5,"wall":${WALL0 + 20}}`,
      `{"t":30,"rss":1e400,"wall":${WALL0 + 30}}`,
      `{"t":40,"heapUsed":1e400,"heapTotal":5,"wall":${WALL0 + 40}}`,
      `{"t":50,"rss":1e300,"wall":${WALL0 + 50}}`,
      `{"t":60,"rss":7,"wall":1e400}`,
      `{"t":-1,"rss":7,"wall":${WALL0 - 1}}`,
      `{"t":70,"hwm":-1,"cpuMs":5,"wall":${WALL0 + 70}}`,
    ];
    const text = [
      line({ t: 0, phase: "agent", pid: 42, host: "h", heap: true }),
      ...hostile,
      line({ t: 80, rss: 100 }),
    ];
    const a = parseAgentSamples("agent.jsonl", `${text.join("\n")}\n`);
    expect(a.badLines).toBe(hostile.length);
    expect(a.rss).toEqual([[80, 100]]);
    const m = mergeMemory([a], [], 0);
    const md = renderMemoryMarkdown(m);
    const html = renderMemoryHtml(m, [{ rss: a.rss, heap: a.heapUsed, gaps: a.gaps }]);
    expect(`${md}${html}`).not.toMatch(/Infinity|NaN/);
  });

  it("combines runners' marks: earliest first, latest last, sessions summed", () => {
    const runners: NamedSummary[] = [
      { source: "a", summary: summary({ connect: { first: WALL0 + 100, last: WALL0 + 120, count: 1 } }) },
      { source: "b", summary: summary({ connect: { first: WALL0 + 90, last: WALL0 + 110, count: 1 }, close: null }) },
    ];
    expect(runPhases(runners)).toEqual({ connect: { first: WALL0 + 90, last: WALL0 + 120, count: 2 }, close: null });
  });

  it("cuts windows at the marks, with each window's peak; a mark out of order folds into the window before", () => {
    const a = parseAgentSamples("agent.jsonl", agentFile());
    const w = phaseWindows(a, [
      { phase: "connect", first: 200, last: 210, count: 2 },
      { phase: "first-chunk", first: 240, last: 260, count: 2 },
      { phase: "completion", first: 400, last: 480, count: 2 },
      { phase: "hold-end", first: 470, last: 470, count: 2 }, // before the last completion: folded
      { phase: "close", first: 600, last: 700, count: 2 },
    ]);
    expect(w.map((x) => [x.label, x.from, x.to])).toEqual([
      ["before the first connect", 10, 200],
      ["the first connect → the first chunk", 200, 240],
      ["the first chunk → the last completion", 240, 480],
      ["the last completion → the last close", 480, 700],
      ["after the last close", 700, 1001],
    ]);
    expect(w[2]?.peakHeapBytes).toBe(999);
    expect(w[3]?.peakRssBytes).toBe(150);
    expect(w.reduce((n, x) => n + x.rssSamples, 0)).toBe(100);
  });

  it("places marks with --clock-offset-ms and renders every foreign text inert", () => {
    const a = parseAgentSamples("<b>agent</b>|x.jsonl", agentFile());
    const runners: NamedSummary[] = [
      {
        source: "<script>r</script>",
        summary: summary({ connect: { first: WALL0 + 100, last: WALL0 + 100, count: 1 } }),
      },
    ];
    const m = mergeMemory([a], runners, 50);
    expect(m.agents[0]?.phases).toEqual([{ phase: "connect", first: 150, last: 150, count: 1 }]);
    expect(m.notes.join(" ")).toMatch(/were not samples/);
    const md = renderMemoryMarkdown(m);
    expect(md).toMatch(/--clock-offset-ms 50/);
    expect(md).toContain(String.raw`\<b>agent\</b>\|x.jsonl`);
    const html = renderMemoryHtml(m, [{ rss: a.rss, heap: a.heapUsed }]);
    expect(html).not.toMatch(/<script>|<b>/);
    expect(html).toMatch(/&lt;script&gt;r&lt;\/script&gt;/);
  });

  it("renders two agents (baseline and candidate servers) side by side, each with its own timeline and windows", () => {
    const base = parseAgentSamples("baseline.jsonl", agentFile());
    const cand = parseAgentSamples(
      "candidate.jsonl",
      agentFile().replace(/"rss":(\d+)/g, (_m, v) => `"rss":${Number(v) * 2}`),
    );
    const runners: NamedSummary[] = [
      { source: "r", summary: summary({ connect: { first: WALL0 + 100, last: WALL0 + 100, count: 1 } }) },
    ];
    const m = mergeMemory([base, cand], runners, 0);
    expect(m.agents.map((a) => [a.source, a.figures.peakRssBytes])).toEqual([
      ["baseline.jsonl", 150],
      ["candidate.jsonl", 300],
    ]);
    const md = renderMemoryMarkdown(m);
    expect(md).toMatch(/\| baseline\.jsonl \| h \| 42 \| 0\.0 \|/);
    expect(md).toMatch(/\| candidate\.jsonl \| h \| 42 \|/);
    expect(md.match(/### Peaks per phase window/g)).toHaveLength(2);
    const html = renderMemoryHtml(
      m,
      [base, cand].map((a) => ({ rss: a.rss, heap: a.heapUsed })),
    );
    expect(html.match(/<svg class="timeline"/g)).toHaveLength(2);
  });

  it("reads the phase marks out of k6 summary data (min, max, count of each phase's Trend)", () => {
    const data = {
      metrics: {
        catchup_wall_connect: { values: { min: 5, max: 9, count: 3 } },
        catchup_wall_close: { values: { count: 0 } },
      },
    };
    expect(phasesFromSummary(data)).toEqual({
      connect: { first: 5, last: 9, count: 3 },
      "first-chunk": null,
      completion: null,
      "hold-end": null,
      close: null,
    });
  });
});

describe("heap gaps on the timeline", () => {
  it("breaks the heap line where the inspector did not answer, never joining across", () => {
    const text = [
      line({ t: 0, phase: "agent", pid: 1, host: "h", heap: true }),
      line({ t: 10, rss: 100 }),
      line({ t: 11, heapUsed: 5, heapTotal: 9 }),
      line({ t: 21, heapUsed: 6, heapTotal: 9 }),
      line({ t: 500, rss: 110 }),
      line({ t: 521, heapGapMs: 500 }),
      line({ t: 521, heapUsed: 7, heapTotal: 9 }),
      line({ t: 531, heapUsed: 8, heapTotal: 9 }),
    ].join("\n");
    const a = parseAgentSamples("gap.jsonl", text);
    const m = mergeMemory([a], [], 0);
    const html = renderMemoryHtml(m, [{ rss: a.rss, heap: a.heapUsed, gaps: a.gaps }]);
    expect(html.match(/<polyline class="heap"/g)).toHaveLength(2);
    expect(html.match(/<polyline class="rss"/g)).toHaveLength(1);
  });
});

describe("a long agent file", () => {
  it("renders 20 minutes at 10 ms (120,000 samples a lane) without spreading arrays into Math.max", () => {
    const out = [line({ t: 0, phase: "agent", pid: 1, host: "h", heap: true })];
    for (let i = 1; i <= 120_000; i++) {
      out.push(`{"t":${i * 10},"rss":${100 + (i % 1000)},"wall":${WALL0 + i * 10}}`);
      out.push(`{"t":${i * 10 + 1},"heapUsed":${50 + (i % 7)},"heapTotal":99,"wall":${WALL0 + i * 10 + 1}}`);
    }
    const a = parseAgentSamples("long.jsonl", out.join("\n"));
    const m = mergeMemory([a], [], 0);
    expect(m.agents[0]?.figures.peakRssBytes).toBe(1099);
    const html = renderMemoryHtml(m, [{ rss: a.rss, heap: a.heapUsed }]);
    // Thinned to each pixel column's first, lowest, highest and last point: the peak survives.
    const points = /<polyline class="rss" fill="none" points="([^"]*)"/.exec(html)?.[1]?.split(" ") ?? [];
    expect(points.length).toBeLessThan(4 * 1000);
    expect(points.length).toBeGreaterThan(100);
  });
});
