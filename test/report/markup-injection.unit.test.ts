// Foreign text never acts as markup in report.md or merged.md (GitHub renders both): a target's
// stderr and Defect text, a --target command with a newline, variant names, a runner's path with
// `|` and its error with ANSI escapes. Checked on the rendered Markdown: no HTML tag, no line that
// is not ours, no table row with a cell too many, no raw control character.
import { describe, expect, it } from "vitest";
import type { SessionResult } from "../../scenarios/lib/session.js";
import { emptyRow } from "../../scripts/bench/memory/memory.js";
import { renderMarkdown } from "../../scripts/report/markdown.js";
import { mdText } from "../../scripts/report/markup.js";
import { mergeSummaries, type RunnerSummary, renderMergedMarkdown } from "../../scripts/report/merge/merged-report.js";
import { buildModel } from "../../scripts/report/model.js";
import { type LatencyRow, RESULTS_SCHEMA, type Results } from "../../scripts/results/schema.js";
import { testRunInfo } from "../support/run-info.js";

const HTML = "</code></pre></details><h1 id=x>owned</h1><img src=x onerror=alert(1)>";
const FAKE = "\n\n# Injected heading\n\n| fake | table |\n|---|---|\n| 1 | 2 |\n";
const ANSI = "\u001b[31mred\u001b[0m\r\u202eevil";
const LINKS = "![t](https://x.example/p.png) [c](javascript:alert(1)) `code` **bold** ~~s~~ &lt; \\<b>";

/** What in a line could act as markup: removes escaped characters, then looks for the rest. */
function active(line: string): string[] {
  const bare = line.replace(/\\[!-/:-@[-`{-~]/g, "");
  return [
    ...(bare.match(/<[A-Za-z/!?]/g) ?? []),
    ...(bare.match(/[`~]|!\[|\]\(|&[A-Za-z#]+;/g) ?? []),
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
    ...(bare.match(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/g) ?? []),
  ];
}

/** Cells of a table row: split on `|` not escaped. */
const cells = (row: string) => row.replace(/\\./g, "").split("|").length;

function checkInert(md: string): void {
  const lines = md.split("\n");
  for (const line of lines) {
    // The report's own folding (<details>/<summary> around the detail sections) is ours, not foreign.
    if (/^(<details>|<\/details>|<summary>[\w ,:()/.-]*<\/summary>)$/.test(line)) continue;
    expect(active(line), line).toEqual([]);
    expect(line, "a heading that is not ours").not.toMatch(/^#{1,6} Injected/);
  }
  // Every row of a table has as many cells as its header.
  for (let i = 0; i < lines.length; i++) {
    if (!/^\|(---|:?-+:?\|)/.test(lines[i + 1] ?? "")) continue;
    const width = cells(lines[i] as string);
    for (let j = i + 2; j < lines.length && (lines[j] as string).startsWith("|"); j++) {
      expect(cells(lines[j] as string), lines[j]).toBe(width);
    }
  }
  expect(md).not.toContain("Injected heading\n");
  expect(md).not.toContain("**bold**"); // foreign emphasis (ours is **…** around escaped text)
  expect(md).not.toMatch(/^\| fake \| table \|$/m);
}

describe("mdText", () => {
  it("escapes what would act and leaves what would not", () => {
    expect(mdText("a <b> c")).toBe("a \\<b> c");
    expect(mdText("x <= 1.03, y > 2 [95% CI]")).toBe("x <= 1.03, y > 2 [95% CI]");
    expect(mdText("a|b `c` *d* _e_ ~f~ ![g](h) &amp; \\x")).toBe(
      "a\\|b \\`c\\` \\*d\\* \\_e\\_ \\~f\\~ \\![g\\](h) \\&amp; \\x",
    );
    expect(mdText("\\<b>")).toBe("\\\\\\<b>");
    expect(mdText("# title")).toBe("\\# title");
    expect(mdText(`a${ANSI}\nb`)).toBe("a\\x1b[31mred\\x1b[0m\\r\\u202eevil\\nb");
  });
});

describe("report.md", () => {
  it("renders every foreign string inert", () => {
    const variant = (name: string, role: "baseline" | "candidate") => ({
      name,
      kind: "command" as const,
      command: `node srv.js${FAKE}${HTML}`,
      role,
    });
    const row = (v: string, trial: number, ok: boolean): LatencyRow => ({
      case: "snapshot",
      variant: v,
      trial,
      ok,
      completionMs: ok ? 10 + trial : null,
      firstChunkMs: ok ? 5 : null,
      chunks: 2,
      values: 2,
      bytes: 100,
      probeMs: 1,
      error: ok ? null : `server defect: ${HTML}${FAKE}${ANSI}${LINKS}`,
    });
    const base = `base|${HTML}`;
    const cand = `cand${FAKE}`;
    const results: Results = {
      schema: RESULTS_SCHEMA,
      run: {
        ...testRunInfo(),
        cpuModel: `cpu ${HTML}`,
        node: `v20${FAKE}`,
        stopReason: `fatal: ${HTML}${FAKE}${ANSI}`,
        interrupted: true,
      },
      variants: [variant(base, "baseline"), variant(cand, "candidate"), variant(`other${FAKE}`, "candidate")],
      latency: [row(base, 1, true), row(cand, 1, true), row(base, 2, false), row(cand, 2, true)],
      memory: [
        {
          ...emptyRow(
            { kind: "memory", scriptBytes: 1024, clients: 1, mode: "memory", variant: cand, trial: 1 },
            `samples/${HTML}.jsonl`,
            `died: ${HTML}`,
          ),
          peakHeapBytes: 1024 * 1024,
        },
      ],
      // --attribute's sites: function names and paths as the target reports them.
      attribution: {
        intervalBytes: 32768,
        rows: [base, cand].map((variant, i) => ({
          scriptBytes: 1024,
          clients: 1,
          mode: "memory",
          variant,
          kind: "peak" as const,
          ok: true,
          peakHeapBytes: 1024 * 1024,
          peakRssBytes: null,
          sampledBytes: (i + 1) * 8 * 1024 * 1024,
          sites: [
            {
              frame: { functionName: `fn${HTML}${FAKE}`, url: `file:///srv/${LINKS}|x.js`, line: 3 },
              caller: { functionName: `caller${ANSI}`, url: "", line: 1 },
              bytes: (i + 1) * 8 * 1024 * 1024,
            },
          ],
          taken: "peak" as const,
          heapAtProfileBytes: 1024,
          profileRequests: 1,
          profileFile: null,
          error: null,
        })),
      },
      targetCrashes: [
        {
          variant: cand,
          matrix: "latency",
          aa: false,
          at: "2026-01-01T00:00:05.000Z",
          during: `during ${HTML}`,
          code: 1,
          signal: null,
          stderrTail: `${HTML}${FAKE}${ANSI}`,
          affects: [`trial ${LINKS}`],
        },
      ],
    };
    const md = renderMarkdown(buildModel(results));
    checkInert(md);
    // The text is still there, readable.
    expect(md).toContain("\\<img src=x onerror=alert(1)>");
    expect(md).toContain("\\n\\n# Injected heading\\n");
    expect(md).toContain("## Allocation sites at the peak heap");
  });
});

describe("merged.md", () => {
  it("renders a runner's path with | and its error with escape sequences and newlines inert", () => {
    const row = (ok: boolean, error: string | null): SessionResult => ({
      ok,
      completionMs: ok ? 10 : null,
      firstChunkMs: ok ? 5 : null,
      chunks: 1,
      values: 1,
      bytes: 1,
      probeMs: 1,
      error,
    });
    const summary: RunnerSummary = {
      schema: "catchup-bench/k6-summary@1",
      scenario: `scaleout${FAKE}`,
      sessions: 2,
      rows: [row(true, null), row(false, `${ANSI}${FAKE}${HTML}`)],
      figures: { completionMs: { count: 1, min: 10, max: 10, avg: 10, med: 10 }, probeMs: null, errors: 1 },
    } as RunnerSummary;
    const md = renderMergedMarkdown(mergeSummaries([{ source: `runs/a|b${HTML}${FAKE}`, summary }]));
    checkInert(md);
  });
});
