/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// report.html opens with the verdicts at a glance, checked in headless Chromium (Debian's
// /usr/bin/chromium) at 1,400 px: one forest-plot row per judged cell and metric, before any other
// chart or verdict table; each median dot where the axis puts its ratio, inside its interval; the A/A
// band behind it; the guard's ceiling right of 1.0 in the guarded rows only; the practical floor around
// 1.0; no two labels overlapping; the plot inside the page's width.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildModel } from "../../scripts/report/model.js";
import { writeReports } from "../../scripts/report/write.js";
import { launchChromium } from "../support/chromium.js";
import { defaultRun } from "./synthetic-run.js";

interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface PlotRow {
  metric: string;
  cell: string;
  median: number | null;
  dot: Rect | null;
  ci: Rect | null;
  aa: Rect | null;
  floors: Rect[];
  ceilings: Rect[];
  /** Children in drawing order (later ones are drawn over earlier ones). */
  order: string[];
}

interface Plot {
  svg: Rect;
  pageWidth: number;
  scrollWidth: number;
  /** Elements of the page that come before the plot: other charts and tables of verdicts. */
  chartsBefore: number;
  ticks: { value: number; x: number }[];
  rows: PlotRow[];
  labels: (Rect & { text: string })[];
}

let dir: string;
let browser: Browser;
let plot: Plot;
let judged: { metric: string; cell: string; guarded: boolean }[];
const pageErrors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catchup-forest-"));
  // A/A band, a guard on two metrics, 8 rounds: every element of a row has something to draw.
  const results = defaultRun(dir, { aa: true, guard: { ceiling: 1.03, metrics: ["completionMs", "peakHeapBytes"] } });
  for (const row of results.aa?.latency ?? [])
    if (row.completionMs !== null) row.acknowledgedMs = row.completionMs + 100;
  const { htmlPath } = await writeReports(dir, results);
  const model = buildModel(results);
  judged = model.metrics.flatMap((m) => m.cells.map((v) => ({ metric: v.metric, cell: v.cell, guarded: v.guarded })));
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(pathToFileURL(htmlPath).href, { waitUntil: "load", timeout: 30_000 });
  plot = await page.evaluate(() => {
    const box = (e: Element | null): Rect | null => {
      if (!e) return null;
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    const svg = document.querySelector("svg.forest") as SVGSVGElement;
    const before = (e: Element) => e.compareDocumentPosition(svg) & Node.DOCUMENT_POSITION_FOLLOWING;
    const rows = [...svg.querySelectorAll(".forest-row")].map((g) => ({
      metric: g.getAttribute("data-metric") ?? "",
      cell: g.getAttribute("data-cell") ?? "",
      median: g.hasAttribute("data-median") ? Number(g.getAttribute("data-median")) : null,
      dot: box(g.querySelector(".median")),
      ci: box(g.querySelector(".ci")),
      aa: box(g.querySelector(".aa")),
      floors: [...g.querySelectorAll(".floor")].map((e) => box(e) as Rect),
      ceilings: [...g.querySelectorAll(".ceiling")].map((e) => box(e) as Rect),
      order: [...g.children].map((c) => c.getAttribute("class") ?? c.tagName),
    }));
    const ticks = [...svg.querySelectorAll("text.tick")].map((t) => {
      const r = t.getBoundingClientRect();
      return { value: Number(t.textContent), x: (r.left + r.right) / 2 };
    });
    const labels = [...svg.querySelectorAll("text")]
      .filter((t) => !t.classList.contains("tick"))
      .map((t) => ({ ...(box(t) as Rect), text: t.textContent ?? "" }));
    return {
      svg: box(svg) as Rect,
      pageWidth: document.documentElement.clientWidth,
      scrollWidth: document.documentElement.scrollWidth,
      chartsBefore: [...document.querySelectorAll("div.chart, table.verdicts")].filter((e) => before(e)).length,
      ticks,
      rows,
      labels,
    };
  });
  await page.screenshot({ path: join(dir, "forest.png"), fullPage: false });
  await page.close();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The axis as the page drew it: x of a ratio, from two of its tick labels (a log scale). */
function axis(): (ratio: number) => number {
  const [a, b] = [plot.ticks[0], plot.ticks.find((t) => t.value !== plot.ticks[0]?.value)];
  if (!a || !b) throw new Error("the plot has fewer than two ticks");
  const perLog = (b.x - a.x) / (Math.log(b.value) - Math.log(a.value));
  return (ratio) => a.x + (Math.log(ratio) - Math.log(a.value)) * perLog;
}

const centre = (r: Rect) => (r.left + r.right) / 2;

describe("report.html's forest plot of the verdicts, in Chromium", () => {
  it("comes first: before any other chart or verdict table, inside the page's width", () => {
    expect(pageErrors).toEqual([]);
    expect(plot.chartsBefore).toBe(0);
    expect(plot.scrollWidth).toBeLessThanOrEqual(plot.pageWidth);
    expect(plot.svg.right).toBeLessThanOrEqual(plot.pageWidth);
  });

  it("has one row per judged cell and metric, in the metric table's order", () => {
    expect(plot.rows.map((r) => `${r.metric} ${r.cell}`)).toEqual(judged.map((j) => `${j.metric} ${j.cell}`));
  });

  it("puts each median where the axis puts its ratio, inside its interval, over its A/A band", () => {
    const x = axis();
    for (const r of plot.rows) {
      const what = `${r.metric} ${r.cell}`;
      if (r.median === null || !r.dot) continue;
      expect(Math.abs(centre(r.dot) - x(r.median)), what).toBeLessThan(1.5);
      if (r.ci) {
        expect(centre(r.dot), what).toBeGreaterThanOrEqual(r.ci.left - 0.5);
        expect(centre(r.dot), what).toBeLessThanOrEqual(r.ci.right + 0.5);
      }
      // Drawn behind: the band before the interval and the dot.
      expect(r.order.indexOf("aa"), what).toBeLessThan(r.order.indexOf("median"));
      expect(r.aa, what).not.toBeNull();
    }
  });

  it("draws the ceiling right of 1.0 in the guarded rows only, and the floor on both sides of 1.0", () => {
    const x = axis();
    for (const r of plot.rows) {
      const what = `${r.metric} ${r.cell}`;
      const guarded = judged.find((j) => j.metric === r.metric && j.cell === r.cell)?.guarded;
      expect(r.ceilings.length, what).toBe(guarded ? 1 : 0);
      for (const c of r.ceilings) expect(Math.abs(centre(c) - x(1.03)), what).toBeLessThan(1.5);
      if (r.floors.length === 2) {
        const [low, high] = r.floors as [Rect, Rect];
        expect(centre(low), what).toBeLessThan(x(1));
        expect(centre(high), what).toBeGreaterThan(x(1));
      }
    }
    // Latency rows have a 1 ms floor on medians of 100 ms and more: the relative 1% decides, both sides.
    const latency = plot.rows.filter((r) => r.metric === "completionMs");
    for (const r of latency) expect(r.floors, r.cell).toHaveLength(2);
  });

  it("overlaps no label with another", () => {
    const clashes: string[] = [];
    plot.labels.forEach((a, i) => {
      for (const b of plot.labels.slice(i + 1)) {
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
          clashes.push(`"${a.text}" overlaps "${b.text}"`);
        }
      }
    });
    expect(clashes).toEqual([]);
    for (const l of plot.labels) expect(l.right, l.text).toBeLessThanOrEqual(plot.svg.right);
  });
});
