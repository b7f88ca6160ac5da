/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The report.html of a real run (the compiled CLI against the bundled server, --quick with 2 latency
// cases x 3 rounds and 2 memory cells of 4 clients x 3 trials) laid out in headless Chromium (Debian's /usr/bin/chromium) at 1,400 px:
// the page never scrolls sideways (wide tables scroll in their own box), no two labels overlap
// (bounding boxes from the DOM), phase labels sit in the lane above the plot and peak labels right of
// it (never over the data), the peak labels carry the median trial's figures, and the latency charts
// plot both timers. CATCHUP_HTML_RUN=DIR checks the report.html of an existing run instead (e.g.
// the default `npm run bench`'s reports/<run>).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryRow, Results } from "../../scripts/results/schema.js";
import { median } from "../../scripts/util/stats.js";
import { benchResults } from "../bench/bench-child.js";
import { launchChromium } from "../support/chromium.js";

const GIVEN = process.env.CATCHUP_HTML_RUN;
const MIB = 1024 * 1024;

interface Box {
  what: string;
  figure: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface Layout {
  scrollWidth: number;
  clientWidth: number;
  /** Tables not inside a box that scrolls sideways, or boxes wider than the page's column. */
  looseTables: string[];
  /** Every text label of every figure: caption, trial buttons, legend items, phase and peak labels. */
  labels: Box[];
  memory: {
    id: string;
    plot: { left: number; right: number; top: number; bottom: number };
    phases: (Box & { text: string })[];
    peaks: { variant: string; what: string; text: string; left: number }[];
  }[];
  latency: { id: string; series: string[]; received: number; acknowledged: number }[];
  chartErrors: string[];
}

let dir: string | null = null;
let runDir: string;
let results: Results;
let browser: Browser;
let layout: Layout;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (GIVEN) runDir = GIVEN;
  else {
    dir = mkdtempSync(join(tmpdir(), "catchup-layout-"));
    runDir = join(dir, "run");
    const { code, stdout } = await benchResults(
      [
        "--quick",
        "--cases",
        "snapshot,resume-many",
        "--trials",
        "3",
        "--memory-trials",
        "3",
        "--clients",
        "4",
        "--fixtures-dir",
        join(dir, "fixtures"),
      ],
      runDir,
      540_000,
    );
    expect(code, stdout).toBe(0);
  }
  results = JSON.parse(readFileSync(join(runDir, "results.json"), "utf8")) as Results;
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(m.text());
  });
  await page.goto(pathToFileURL(join(runDir, "report.html")).href, { waitUntil: "load", timeout: 30_000 });
  await page.waitForFunction(() => Array.isArray((window as unknown as { __charts?: unknown[] }).__charts), null, {
    timeout: 10_000,
  });
  layout = await page.evaluate(() => {
    const rect = (e: Element) => e.getBoundingClientRect();
    const figures = [...document.querySelectorAll("figure")];
    const boxOf = (e: Element, figure: number): Box => {
      const r = rect(e);
      return {
        what: `figure ${figure} ${e.className || e.tagName}: "${e.textContent}"`,
        figure,
        left: r.left,
        right: r.right,
        top: r.top,
        bottom: r.bottom,
      };
    };
    const labels = figures.flatMap((f, i) =>
      [...f.querySelectorAll("figcaption, .trials button, .legend-item, .chart-label")].map((e) => boxOf(e, i)),
    );
    const main = rect(document.querySelector("main") as Element);
    const looseTables = [...document.querySelectorAll("table")]
      .filter((t) => {
        const box = t.parentElement as HTMLElement;
        const r = rect(box);
        return (
          !box.classList.contains("tablebox") || getComputedStyle(box).overflowX !== "auto" || r.right > main.right
        );
      })
      .map((t) => (t.textContent ?? "").slice(0, 60));
    const memory = figures
      .filter((f) => f.querySelector("div.chart[id^=memory-]"))
      .map((f) => {
        const i = figures.indexOf(f);
        const over = rect(f.querySelector(".u-over") as Element);
        return {
          id: (f.querySelector("div.chart") as Element).id,
          plot: { left: over.left, right: over.right, top: over.top, bottom: over.bottom },
          phases: [...f.querySelectorAll(".phase-label")].map((e) => ({ ...boxOf(e, i), text: e.textContent ?? "" })),
          peaks: [...f.querySelectorAll(".peak-label")].map((e) => ({
            variant: e.getAttribute("data-variant") ?? "",
            what: e.getAttribute("data-peak") ?? "",
            text: e.textContent ?? "",
            left: rect(e).left,
          })),
        };
      });
    type Plot = { root: Element; series: { label: string }[]; data: (number | null | undefined)[][] };
    const w = window as unknown as { __charts: Plot[]; __chartErrors: string[] };
    const latency = w.__charts
      .filter((u) => (u.root.parentElement as Element).id.startsWith("latency-"))
      .map((u) => ({
        id: (u.root.parentElement as Element).id,
        series: u.series.map((s) => s.label),
        received: (u.data[1] ?? []).filter((v) => typeof v === "number").length,
        acknowledged: (u.data[3] ?? []).filter((v) => typeof v === "number").length,
      }));
    return {
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      looseTables,
      labels,
      memory,
      latency,
      chartErrors: w.__chartErrors,
    };
  });
  await page.close();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One row per memory cell, in the report's order (script size, clients, mode). */
function memoryCells(r: Results): MemoryRow[] {
  const seen = new Map<string, MemoryRow>();
  for (const row of r.memory) seen.set(`${row.scriptBytes}/${row.clients}/${row.mode}`, row);
  return [...seen.values()].sort(
    (a, b) => a.scriptBytes - b.scriptBytes || a.clients - b.clients || a.mode.localeCompare(b.mode),
  );
}

const intersect = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe("a real run's report.html at 1,400 px in Chromium", () => {
  it("draws without errors", () => {
    expect(pageErrors).toEqual([]);
    expect(layout.chartErrors).toEqual([]);
  });

  it("never scrolls the page sideways: every table scrolls inside its own box", () => {
    expect(layout.clientWidth).toBe(1400);
    expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
    expect(layout.looseTables).toEqual([]);
  });

  it("has no two labels overlapping", () => {
    const overlapping: string[] = [];
    layout.labels.forEach((a, i) => {
      for (const b of layout.labels.slice(i + 1)) if (intersect(a, b)) overlapping.push(`${a.what} / ${b.what}`);
    });
    expect(layout.labels.length).toBeGreaterThan(0);
    expect(overlapping).toEqual([]);
  });

  it("names only connect, first chunk, completion and close, in the lane above each memory plot", () => {
    expect(layout.memory).toHaveLength(memoryCells(results).length);
    const named = new Set(["connect", "first chunk", "completion", "close"]);
    for (const m of layout.memory) {
      const words = m.phases.flatMap((p) => p.text.split(", "));
      expect(
        words.every((w) => named.has(w)),
        `${m.id}: ${words.join(" | ")}`,
      ).toBe(true);
      expect(words, m.id).toContain("connect");
      for (const p of m.phases) {
        // Above the plot, within its width: a phase label never covers a data point.
        expect(p.bottom, `${m.id} ${p.what}`).toBeLessThanOrEqual(m.plot.top + 0.5);
        expect(p.left, `${m.id} ${p.what}`).toBeGreaterThanOrEqual(m.plot.left - 0.5);
        expect(p.right, `${m.id} ${p.what}`).toBeLessThanOrEqual(m.plot.right + 0.5);
      }
    }
  });

  it("marks each variant's peak heap and RSS right of the plot, with the median trial's value", () => {
    const names = [results.variants[0]?.name, results.variants[1]?.name];
    for (const m of layout.memory) {
      expect(m.peaks.map((p) => `${p.variant} ${p.what}`).sort(), m.id).toEqual(["0 RSS", "0 heap", "1 RSS", "1 heap"]);
      for (const p of m.peaks) expect(p.left, `${m.id} ${p.text}`).toBeGreaterThanOrEqual(m.plot.right);
      // With an odd number of trials the bold (median) trial's peak heap is the cell's median.
      const cell = memoryCells(results)[Number(m.id.replace("memory-", ""))] as MemoryRow;
      names.forEach((name, v) => {
        const rows = results.memory.filter(
          (r: MemoryRow) =>
            r.ok &&
            r.variant === name &&
            r.scriptBytes === cell.scriptBytes &&
            r.clients === cell.clients &&
            r.mode === cell.mode,
        );
        if (rows.length % 2 === 0) return;
        const expected = (median(rows.map((r) => r.peakHeapBytes as number)) / MIB).toFixed(1);
        expect(m.peaks.find((p) => p.variant === String(v) && p.what === "heap")?.text, `${m.id} ${name}`).toBe(
          `peak heap ${expected}`,
        );
      });
    }
  });

  it("plots both timers per latency case: marker received and marker chunk acknowledged", () => {
    const cases = new Set(results.latency.map((r) => r.case));
    expect(layout.latency).toHaveLength(cases.size);
    for (const l of layout.latency) {
      expect(
        l.series.some((s) => s.includes("acknowledged")),
        l.id,
      ).toBe(true);
      expect(l.received, l.id).toBeGreaterThan(0);
      expect(l.acknowledged, l.id).toBe(l.received);
    }
  });
});
