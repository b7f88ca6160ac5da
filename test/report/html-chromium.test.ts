/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// report.html opened for real in headless Chromium (Debian's /usr/bin/chromium via playwright-core):
// no console errors, no network request beyond the file itself, every chart drew, and a screenshot
// report.png saved beside the report.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeReports } from "../../scripts/report/write.js";
import { syntheticResults } from "./synthetic-run.js";

const CHROMIUM = "/usr/bin/chromium";
const KEEP = process.env.CATCHUP_KEEP_REPORT; // set to a directory to keep the rendered run for viewing

let browser: BrowserContext;
let userDataDir: string;
const dirs: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: apt-get install chromium (npm test does it as root)`);
  userDataDir = mkdtempSync(join(tmpdir(), "catchup-chromium-"));
  // A persistent context on a new, empty user-data-dir (playwright refuses --user-data-dir in args).
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    viewport: { width: 1280, height: 900 },
    headless: true,
    timeout: 30_000,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  rmSync(userDataDir, { recursive: true, force: true });
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface PageReport {
  consoleErrors: string[];
  requests: string[];
  failed: string[];
  charts: number;
  chartErrors: string[];
  canvases: { id: string; inked: number; width: number }[];
  /** The phase and peak labels of the memory charts, as boxes in CSS pixels. */
  labels: { chart: string; text: string; x0: number; x1: number; y0: number; y1: number }[];
}

type Box = PageReport["labels"][number];

/** Pairs of labels of one chart whose boxes intersect. */
function overlaps(labels: Box[]): string[] {
  const out: string[] = [];
  labels.forEach((a, i) => {
    for (const b of labels.slice(i + 1)) {
      if (a.chart === b.chart && a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) {
        out.push(`${a.chart}: "${a.text}" overlaps "${b.text}"`);
      }
    }
  });
  return out;
}

async function open(
  htmlPath: string,
  screenshot: string,
  interact?: (page: Page) => Promise<void>,
): Promise<PageReport> {
  const page = await browser.newPage();
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  const failed: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  page.on("request", (r) => requests.push(r.url()));
  page.on("requestfailed", (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  await page.goto(pathToFileURL(htmlPath).href, { waitUntil: "load", timeout: 30_000 });
  await page.waitForFunction(() => Array.isArray((window as unknown as { __charts?: unknown[] }).__charts), null, {
    timeout: 10_000,
  });
  await interact?.(page);
  const state = await page.evaluate(() => {
    const w = window as unknown as { __charts: unknown[]; __chartErrors: string[] };
    // A chart "drew" when its plot canvas has non-transparent pixels (axes, grid, series).
    const canvases = [...document.querySelectorAll<HTMLDivElement>("div.chart")].map((div) => {
      const canvas = div.querySelector("canvas");
      if (!canvas) return { id: div.id, inked: 0, width: 0 };
      const ctx = canvas.getContext("2d");
      const px = ctx?.getImageData(0, 0, canvas.width, canvas.height).data;
      let inked = 0;
      if (px) for (let i = 3; i < px.length; i += 4) if ((px[i] as number) > 0) inked++;
      return { id: div.id, inked, width: canvas.width };
    });
    const labels = [...document.querySelectorAll("div.chart")].flatMap((div) =>
      [...div.querySelectorAll(".chart-label")].map((e) => {
        const r = e.getBoundingClientRect();
        return { chart: div.id, text: e.textContent ?? "", x0: r.left, x1: r.right, y0: r.top, y1: r.bottom };
      }),
    );
    return { charts: w.__charts.length, chartErrors: w.__chartErrors, canvases, labels };
  });
  await page.screenshot({ path: screenshot, fullPage: true });
  await page.close();
  return { consoleErrors, requests, failed, ...state };
}

describe("report.html in headless Chromium", () => {
  it("opens with no console errors and no network, draws every chart, and is screenshotted", async () => {
    const dir = KEEP ?? mkdtempSync(join(tmpdir(), "catchup-html-"));
    if (!KEEP) dirs.push(dir);
    syntheticResults(dir, { withFailure: true, aa: true, memoryTrials: 3, trials: 8 });
    const { htmlPath } = await writeReports(dir);
    const html = readFileSync(htmlPath, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!github\.com)/);

    const png = join(dir, "report.png");
    const r = await open(htmlPath, png);
    expect(r.consoleErrors).toEqual([]);
    expect(r.failed).toEqual([]);
    expect(r.requests).toEqual([pathToFileURL(htmlPath).href]);
    expect(r.chartErrors).toEqual([]);
    // 4 latency cases + 8 memory cells
    expect(r.charts).toBe(12);
    expect(r.canvases).toHaveLength(12);
    for (const c of r.canvases) {
      expect(c.width, c.id).toBeGreaterThan(300);
      expect(c.inked, c.id).toBeGreaterThan(2000);
    }
    expect(statSync(png).size).toBeGreaterThan(50_000);
    // Every memory chart names its phases and marks both variants' peak heap and RSS; no two labels overlap.
    for (let i = 0; i < 8; i++) {
      const of = r.labels.filter((l) => l.chart === `memory-${i}`);
      expect(of.filter((l) => l.text.startsWith("peak ")).length, `memory-${i}`).toBe(4);
      expect(
        of.some((l) => l.text === "connect"),
        `memory-${i}`,
      ).toBe(true);
    }
    expect(overlaps(r.labels)).toEqual([]);
    // Each memory cell offers its median trial (the default) and its three trials.
    expect(html.match(/<div class="trials">bold trial: <button[^>]*data-pick="median" class="on">/g)).toHaveLength(8);
  });

  it("lets the reader pick another trial of a memory cell, and redraws it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catchup-html-"));
    dirs.push(dir);
    syntheticResults(dir, { memoryTrials: 3 });
    const { htmlPath } = await writeReports(dir);
    let before = "";
    let after = "";
    const r = await open(htmlPath, join(dir, "report.png"), async (page) => {
      const picture = () =>
        page.evaluate(() => document.querySelector<HTMLCanvasElement>("#memory-0 canvas")?.toDataURL() ?? "");
      before = await picture();
      await page.click('button[data-chart="memory-0"][data-pick="3"]');
      after = await picture();
      expect(await page.getAttribute('button[data-chart="memory-0"][data-pick="3"]', "class")).toBe("on");
    });
    expect(r.consoleErrors).toEqual([]);
    expect(r.chartErrors).toEqual([]);
    expect(r.charts).toBe(12);
    expect(after).not.toBe(before); // trial 3 bold, not the median trial
    expect(overlaps(r.labels)).toEqual([]);
  });

  it("still opens cleanly and marks the gap when a samples file is missing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catchup-html-"));
    dirs.push(dir);
    syntheticResults(dir);
    rmSync(join(dir, "samples", "memory-s1024-c1-memory-batched-t1.jsonl"));
    const { htmlPath } = await writeReports(dir);
    expect(readFileSync(htmlPath, "utf8")).toContain("batched: no samples");
    const r = await open(htmlPath, join(dir, "report.png"));
    expect(r.consoleErrors).toEqual([]);
    expect(r.charts).toBe(12);
  });
});
