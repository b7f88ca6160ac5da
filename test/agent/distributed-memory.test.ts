// The distributed shape end to end on one machine: the bundled server (with an inspector), the
// sampling agent beside it (`catchup-bench sample --port`), two k6 runners (the k6 double, a TEST
// AID) each running its execution segment of scaleout.js, then `report --merge` of both summaries
// with the agent's samples. The merged report's memory peaks are the agent file's own, and both
// runners' phase marks appear on the agent's clock, inside the sampled window; merged.html opens in
// real Chromium with the timeline drawn. CATCHUP_KEEP_REPORT=DIR keeps the merge and a screenshot.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../fixtures/cli.js";
import { runDouble } from "../k6/support.js";
import { until } from "../sampler/support.js";
import { smallFixture } from "../scenarios/support/fixture.js";
import { type RunningServer, startServer } from "../support/server.js";
import { killAgents, readSamples, type SampleLine, startAgentChild } from "./support.js";

const KEEP = process.env.CATCHUP_KEEP_REPORT;
const fixture = smallFixture();
let server: RunningServer;
let work: string;
let run: string;
let lines: SampleLine[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "catchup-distributed-"));
  run = join(work, "run");
  mkdirSync(run);
  server = await startServer(fixture.path, [], 20_000, ["--inspect=127.0.0.1:0"]);
  const agentFile = join(run, "agent.jsonl");
  const agent = startAgentChild(["--port", new URL(server.url).port, "--out", agentFile, "--gc-at-end"]);
  await agent.waitFor(/^sampling pid \d+ \(port \d+\): RSS every 10 ms, heap every 10 ms/m);
  await until(() => readSamplesSafe(agentFile).filter((l) => "rss" in l).length >= 10, 15_000, "10 RSS lines");
  const runner = (segment: string, name: string) =>
    runDouble("scaleout.js", {
      args: ["--execution-segment", segment, "--execution-segment-sequence", "0,1/2,1"],
      env: {
        URL: server.url,
        CLIENTS: "4",
        CASE: "many",
        ACK_DELAY_MS: "10",
        HOLD_MS: "50",
        SUMMARY: join(run, `summary-${name}.json`),
      },
    });
  const runs = await Promise.all([runner("0:1/2", "a"), runner("1/2:1", "b")]);
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
  agent.child.kill("SIGINT");
  expect((await agent.exited).code).toBe(0);
  lines = readSamples(agentFile);
}, 90_000);

function readSamplesSafe(file: string): SampleLine[] {
  try {
    return readSamples(file);
  } catch {
    return [];
  }
}

afterAll(async () => {
  killAgents();
  await server?.stop();
  fixture.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

type Phase = { phase: string; first: number; last: number; count: number };
interface MergedJson {
  totals: { ok: number };
  memory: {
    clockOffsetMs: number;
    agents: Array<{
      figures: { peakRssBytes: number; peakHeapBytes: number; hwmRssBytes: number; postGcHeapBytes: number };
      phases: Phase[];
      runnerPhases: Array<{ source: string; phases: Phase[] }>;
      windows: Array<{ label: string; peakRssBytes: number | null; peakHeapBytes: number | null }>;
    }>;
  };
}

describe("sample + two k6 runners + report --merge --samples", () => {
  it("renders the server's memory with the agent file's peaks and both runners' phase marks", async () => {
    const out = join(work, "merged");
    const merged = await runCli(["report", "--merge", run, "--out", out]);
    expect(merged.code, merged.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(out, "merged.json"), "utf8")) as MergedJson;
    expect(json.totals.ok).toBe(4);
    const [agent] = json.memory.agents;
    const max = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
    const rss = lines.flatMap((l) => (typeof l.rss === "number" ? [l.rss] : []));
    const heap = lines.flatMap((l) => (typeof l.heapUsed === "number" && "heapTotal" in l ? [l.heapUsed] : []));
    const end = lines.find((l) => l.phase === "end");
    const gc = lines.find((l) => l.phase === "gc");
    expect(agent?.figures.peakRssBytes).toBe(max(rss));
    expect(agent?.figures.peakHeapBytes).toBe(max(heap));
    expect(agent?.figures.peakRssBytes).toBe(end?.peakRssBytes);
    expect(agent?.figures.peakHeapBytes).toBe(end?.peakHeapBytes);
    expect(agent?.figures.hwmRssBytes).toBe(end?.hwmRssBytes);
    expect(agent?.figures.postGcHeapBytes).toBe(gc?.heapUsed);
    // The windows cover every sample: the highest window peak is the whole run's.
    expect(max((agent?.windows ?? []).map((w) => w.peakRssBytes ?? 0))).toBe(max(rss));
    expect(max((agent?.windows ?? []).map((w) => w.peakHeapBytes ?? 0))).toBe(max(heap));

    // Both runners' marks, two sessions each, on the agent's clock inside its sampled window.
    expect(agent?.runnerPhases.map((r) => r.source)).toEqual([
      join(run, "summary-a.json"),
      join(run, "summary-b.json"),
    ]);
    const ts = lines.map((l) => l.t);
    for (const r of agent?.runnerPhases ?? []) {
      expect(r.phases.map((p) => [p.phase, p.count])).toEqual([
        ["connect", 2],
        ["first-chunk", 2],
        ["completion", 2],
        ["hold-end", 2],
        ["close", 2],
      ]);
      for (const p of r.phases) {
        expect(p.first).toBeGreaterThan(Math.min(...ts));
        expect(p.last).toBeLessThan(Math.max(...ts));
        expect(p.first).toBeLessThanOrEqual(p.last);
      }
    }
    expect(agent?.phases.find((p) => p.phase === "close")?.count).toBe(4);
    const md = readFileSync(join(out, "merged.md"), "utf8");
    expect(md).toMatch(/## Server memory \(sampling agent\)/);
    expect(md).toMatch(/assumed to agree within ±10 ms/);
    expect(md).toMatch(/\| connect \| .*summary-a\.json \|/);
    expect(md).toMatch(/\| connect \| .*summary-b\.json \|/);
    const html = readFileSync(join(out, "merged.html"), "utf8");
    expect(html).toMatch(/<svg class="timeline"/);
    expect(html).toMatch(/<polyline class="rss"/);
    expect(html).toMatch(/<polyline class="heap"/);
    expect(html).toMatch(/<circle class="gc"/);

    // Real Chromium: the page loads with no error or request beyond itself, and the timeline is drawn.
    const userDataDir = mkdtempSync(join(tmpdir(), "catchup-chromium-"));
    const browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: "/usr/bin/chromium",
      viewport: { width: 1100, height: 900 },
      headless: true,
      timeout: 30_000,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
      page.on("pageerror", (e) => problems.push(String(e)));
      page.on("request", (r) => r.url().startsWith("file:") || problems.push(`request ${r.url()}`));
      await page.goto(pathToFileURL(join(out, "merged.html")).href);
      const drawn = await page.evaluate(() => {
        const svg = document.querySelector("svg.timeline");
        const box = svg?.getBoundingClientRect();
        // Every part of the line: the heap line breaks at heap gaps (a loaded machine has some).
        const points = (cls: string) =>
          [...(svg?.querySelectorAll(`polyline.${cls}`) ?? [])].reduce(
            (n, l) => n + (l.getAttribute("points")?.split(" ").length ?? 0),
            0,
          );
        return {
          width: box?.width ?? 0,
          rss: points("rss"),
          heap: points("heap"),
          marks: svg?.querySelectorAll("line.mark").length ?? 0,
        };
      });
      expect(problems).toEqual([]);
      expect(drawn.width).toBeGreaterThan(500);
      expect(drawn.rss).toBeGreaterThan(10);
      expect(drawn.heap).toBeGreaterThan(10);
      expect(drawn.marks).toBe(10); // five phases, first and last
      if (KEEP) {
        mkdirSync(KEEP, { recursive: true });
        cpSync(out, KEEP, { recursive: true });
        await page.locator("svg.timeline").screenshot({ path: join(KEEP, "merged-timeline.png") });
      }
    } finally {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    }

    // --clock-offset-ms moves every mark by that much on the agent's clock, and says so.
    const shifted = join(work, "shifted");
    const again = await runCli(["report", "--merge", run, "--out", shifted, "--clock-offset-ms", "250"]);
    expect(again.code, again.stderr).toBe(0);
    const moved = (JSON.parse(readFileSync(join(shifted, "merged.json"), "utf8")) as MergedJson).memory.agents[0];
    expect(moved?.phases.length).toBe(agent?.phases.length);
    for (const [k, p] of (moved?.phases ?? []).entries()) {
      expect(p.first - 250).toBeCloseTo(agent?.phases[k]?.first ?? Number.NaN, 6);
    }
    expect(again.stdout).toMatch(/--clock-offset-ms 250/);
  });

  it("refuses a samples file that is not an agent's, and --samples without --merge, in one line (exit 2)", async () => {
    const bad = await runCli(["report", "--merge", run, "--samples", join(run, "summary-a.json")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(
      /^catchup-bench: --samples .*summary-a\.json is not a samples file of `catchup-bench sample`/,
    );
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    const alone = await runCli(["report", run, "--samples", join(run, "agent.jsonl")]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--samples and --clock-offset-ms go with --merge/);
  });
});
