// The report's Targets section: each variant's runtime (as recorded, or "not recorded"), its
// checkout and build times by ref, and chunks / items / bytes through completion per case, with a
// range when trials differed. Pure.
import { describe, expect, it } from "vitest";
import { targetsHtml, targetsMarkdown, targetsModel } from "../../scripts/report/targets.js";
import type { LatencyRow, Results, VariantInfo } from "../../scripts/results/schema.js";

const row = (variant: string, c: LatencyRow["case"], trial: number, values: number, bytes: number, ok = true) =>
  ({
    case: c,
    variant,
    trial,
    ok,
    completionMs: 1,
    firstChunkMs: 1,
    chunks: 2,
    values,
    bytes,
    probeMs: 1,
    error: null,
  }) as LatencyRow;

function results(variants: VariantInfo[], latency: LatencyRow[]): Results {
  return {
    schema: "catchup-bench/results@3",
    run: {
      startedAt: "",
      finishedAt: null,
      node: "v20.0.0",
      cpuModel: "",
      cores: 2,
      loadAverage: [],
      gitCommit: null,
      config: {},
    },
    variants,
    latency,
    memory: [],
  };
}

describe("targets section", () => {
  it("names each target's runtime, and says when it was not recorded or is not Node", () => {
    const md = targetsMarkdown(
      targetsModel(
        results(
          [
            {
              name: "a",
              kind: "bundled",
              command: "x",
              role: "baseline",
              runtime: { exe: "/n/node", node: "v24.1.0" },
            },
            {
              name: "b",
              kind: "command",
              command: "y",
              role: "candidate",
              runtime: { exe: "/usr/bin/bun", node: null },
            },
            { name: "c", kind: "command", command: "z", role: "candidate" },
          ],
          [],
        ),
      ),
    ).join("\n");
    expect(md).toContain("| a | baseline | Node v24.1.0 |");
    expect(md).toContain("| b | candidate | /usr/bin/bun (not a Node binary) |");
    expect(md).toContain("| c | candidate | not recorded |");
    expect(md).not.toContain("| checkout |"); // no ref columns without --ref
    expect(md).not.toContain("Through completion");
  });

  it("shows checkout and build times per ref, and items and bytes per case with ranges when trials differed", () => {
    const ref = { ref: "main", commit: "a".repeat(40), dirty: false, build: "b", buildMs: 12_900, buildCached: false };
    const m = targetsModel(
      results(
        [
          {
            name: "main",
            kind: "command",
            command: "s",
            role: "baseline",
            ...ref,
            checkoutMs: 8000,
            checkoutCached: true,
          },
          { name: "head", kind: "command", command: "s", role: "candidate", ...ref, ref: "<b>", build: null },
        ],
        [
          row("main", "resume-many", 1, 1001, 1_533_043),
          row("main", "resume-many", 2, 1001, 1_533_100),
          row("main", "resume-many", 3, 5, 5, false), // a failed trial does not count
          row("head", "resume-many", 1, 2, 1_479_122),
        ],
      ),
    );
    const md = targetsMarkdown(m).join("\n");
    expect(md).toContain(`| main | baseline | not recorded | main = ${"a".repeat(12)} | 8.0 s (cached) | 12.9 s |`);
    expect(md).toContain("| head | candidate | not recorded | \\<b> = aaaaaaaaaaaa | n/a | no --build |");
    expect(md).toContain("| resume-many | 2 / 1,001 / 1,533,043–1,533,100 | 2 / 2 / 1,479,122 |");
    // The HTML's text is escaped: a ref name cannot inject markup.
    const html = targetsHtml(m);
    expect(html).toContain("&lt;b&gt; = aaaaaaaaaaaa");
    expect(html).not.toContain("<b>");
  });
});
