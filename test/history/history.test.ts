/// <reference lib="dom" />
// End to end, on a scratch repository of the test notes server whose sixth recorded commit makes its
// catch-up wait 250 ms: `history record` measures every commit against the anchor (a record stopped by
// SIGTERM continues where it stopped), `history detect` finds the change point at that commit and
// nowhere else (one alert, however many metrics moved), and history.html draws every series in
// headless Chromium with no request beyond the file.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../scripts/store/open-store.js";
import { ROOT } from "../bench/bench-child.js";
import { runNode } from "../support/child.js";
import { NOTES_TARGET, type NotesWorkspace, notesWorkspace } from "./notes-repo.js";

const BIN = join(ROOT, "bin", "catchup-bench.js");
const CHROMIUM = "/usr/bin/chromium";

let dir: string;
let repo: string;
let commits: string[];
let fixture: string;

/** A small latency-only run of the notes server: one case, five trials. */
const benchArgs = () => [
  ...NOTES_TARGET,
  ...["--cases", "resume-many", "--trials", "5", "--ack-delay-ms", "0", "--no-memory", "--no-aa", "--fixture", fixture],
];

const history = (...args: string[]) =>
  runNode([BIN, "history", ...args], { cwd: repo, timeoutMs: 600_000, label: `history ${args[0]}` });

let workspace: NotesWorkspace;

beforeAll(() => {
  // The anchor, five commits as fast as it, then five 250 ms slower (on a loaded machine a trial of
  // the notes server varies several-fold: the delay must stand out of that).
  workspace = notesWorkspace("history-e2e-", [0, 0, 0, 0, 0, 0, 250, 250, 250, 250, 250]);
  ({ dir, repo, commits, fixture } = workspace);
});

// CATCHUP_KEEP_HISTORY=1 keeps the repository, its store and the page for a look.
afterAll(() => workspace?.remove());

describe("history across commits (notes server)", () => {
  it("records, resumes after a stop, finds the delay at its commit only, and draws the page", {
    timeout: 1_200_000,
  }, async () => {
    const range = `${commits[0]}..${commits[10]}`;
    const recordArgs = ["record", "--commits", range, "--anchor", commits[0] as string, ...benchArgs()];
    // Stopped by SIGTERM while its third commit runs: two are stored.
    const first = spawn(process.execPath, [BIN, "history", ...recordArgs], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    const third = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no third commit within 300 s:\n${err}`)), 300_000);
      first.stderr.setEncoding("utf8").on("data", (d: string) => {
        err += d;
        if (
          /history: \[3\/10\]/.test(err) &&
          /\[1\/\d+\] resume-many/.test(err.slice(err.indexOf("history: [3/10]")))
        ) {
          clearTimeout(timer);
          resolve();
        }
      });
      first.once("exit", () => reject(new Error(`record exited early:\n${err}`)));
    });
    await third;
    first.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => first.once("exit", (c) => resolve(c)));
    expect(code, err).toBe(143);

    const resumed = await history(...recordArgs, "--json");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/2 of 10 commits already recorded against/);
    const runs = (JSON.parse(resumed.stdout) as { runs: { head: string }[] }).runs;
    expect(runs.map((r) => r.head)).toEqual(commits.slice(3));

    // Every commit once in the series (the stopped run is kept, out of it).
    const store = await openStore(join(repo, ".catchup-bench", "history.sqlite"));
    const recorded = await store.db
      .selectFrom("run")
      .select(["head_sha", "interrupted"])
      .where("kind", "=", "record")
      .execute();
    await store.close();
    expect(new Set(recorded.filter((r) => r.interrupted === 0).map((r) => r.head_sha))).toEqual(
      new Set(commits.slice(1)),
    );

    // Ten points a series, 5 before the delay and 5 after: a permutation test of them cannot go below
    // about 2/252, so p 0.02 (with 999 permutations to resolve it).
    const settings = ["--p-value", "0.02", "--permutations", "999"];
    const detected = await history("detect", ...settings, "--json");
    expect(detected.code, detected.stderr).toBe(0);
    const d = JSON.parse(detected.stdout) as {
      alerts: { commit: string; direction: string; changes: { metric: string }[] }[];
      series: { metric: string; points: unknown[] }[];
    };
    expect(d.series.every((s) => s.points.length === 10)).toBe(true);
    expect(d.alerts.map((a) => [a.commit, a.direction])).toEqual([[commits[6], "regression"]]);
    expect(d.alerts[0]?.changes.map((c) => c.metric)).toContain("completionMs");

    const page = join(dir, "history.html");
    const written = await history("page", ...settings, "--out", page);
    expect(written.code, written.stderr).toBe(0);
    const shown = await openPage(page);
    expect(shown.errors).toEqual([]);
    expect(shown.requests).toEqual([pathToFileURL(page).href]);
    expect(shown.charts).toBe(d.series.length);
    expect(shown.inked.every((n) => n > 2000)).toBe(true);
    // The completion series marks its change point; the probe (sent after the first chunk) has none.
    expect(shown.changes.find((c) => c.title.includes("completionMs"))?.changes).toBe(1);
  });
});

async function openPage(path: string) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (see .ci/run)`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(path).href, { waitUntil: "load", timeout: 30_000 });
    await page.waitForFunction(() => Array.isArray((window as unknown as { __charts?: unknown[] }).__charts), null, {
      timeout: 10_000,
    });
    const state = await page.evaluate(() => {
      const w = window as unknown as { __charts: unknown[]; __chartErrors: string[] };
      const inked = [...document.querySelectorAll("div.chart canvas")].map((canvas) => {
        const c = canvas as HTMLCanvasElement;
        const px = c.getContext("2d")?.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        if (px) for (let i = 3; i < px.length; i += 4) if ((px[i] as number) > 0) n++;
        return n;
      });
      const changes = [...document.querySelectorAll("figure")].map((f) => ({
        title: f.querySelector("figcaption")?.textContent ?? "",
        changes: Number(f.getAttribute("data-changes")),
      }));
      return { charts: w.__charts.length, chartErrors: w.__chartErrors, inked, changes };
    });
    await page.screenshot({ path: path.replace(/\.html$/, ".png"), fullPage: true });
    return { ...state, errors: [...errors, ...state.chartErrors], requests };
  } finally {
    await browser.close();
  }
}
