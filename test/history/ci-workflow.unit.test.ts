// The history workflow of docs/ci.md, parsed by a real YAML parser (actionlint cannot run here):
// actionlint-style rules hold, every catchup-bench command it runs exists and takes the flags given,
// main's pushes are recorded and pull requests compared with their merge base and commented on.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { COMMAND_SPECS } from "../../scripts/options/commands.js";
import { HISTORY_BENCH_OPTIONS } from "../../scripts/options/history.js";
import { ROOT } from "../bench/bench-child.js";
import { catchupCommands, workflowProblems } from "./workflow-rules.js";

/** The first ```yaml block under the heading. */
function workflowText(heading: string): string {
  const doc = readFileSync(join(ROOT, "docs", "ci.md"), "utf8");
  const start = doc.indexOf(heading);
  expect(start, `docs/ci.md has "${heading}"`).toBeGreaterThan(-1);
  const m = /```yaml\n([\s\S]*?)```/.exec(doc.slice(start));
  if (!m?.[1]) throw new Error(`no yaml block under ${heading}`);
  return m[1];
}

const HISTORY = "## History: record main, compare pull requests";

/** The flags a command line may use: the command's table (and bench's, for those that measure). */
function flagsOf(words: string[]): { spec: string; flags: Set<string>; switches: Set<string> } | null {
  const name = words[0] === "history" ? `history ${words[1]}` : (words[0] as string);
  const spec = COMMAND_SPECS.find((s) => s.command.split(" ").slice(0, name.split(" ").length).join(" ") === name);
  if (!spec) return null;
  const options = { ...spec.options, ...(spec.notes && name.startsWith("history") ? HISTORY_BENCH_OPTIONS : {}) };
  return {
    spec: spec.command,
    flags: new Set(Object.keys(options)),
    switches: new Set(
      Object.entries(options)
        .filter(([, o]) => o.type === "boolean")
        .map(([f]) => f),
    ),
  };
}

describe("the history workflow of docs/ci.md", () => {
  const text = workflowText(HISTORY);
  const parsed = parseDocument(text);

  it("is valid YAML and keeps actionlint's rules", () => {
    expect(parsed.errors.map((e) => e.message)).toEqual([]);
    expect(workflowProblems(parsed.toJS())).toEqual([]);
  });

  it("runs only catchup-bench commands and flags that exist", () => {
    const commands = catchupCommands(parsed.toJS());
    expect(commands.map((c) => c.slice(0, c[0] === "history" ? 2 : 1).join(" "))).toEqual([
      "history record",
      "history detect",
      "history page",
      "bench",
    ]);
    for (const words of commands) {
      const known = flagsOf(words);
      expect(known, words.join(" ")).not.toBeNull();
      for (const w of words.filter((x) => x.startsWith("--"))) {
        const flag = w.slice(2).split("=")[0] as string;
        const ok = known?.flags.has(flag) || (flag.startsWith("no-") && known?.switches.has(flag.slice(3)));
        expect(ok, `${known?.spec}: --${flag}`).toBe(true);
      }
    }
  });

  it("records main's pushes into a cached store and compares a pull request with its merge base", () => {
    const wf = parsed.toJS() as {
      on: Record<string, unknown>;
      jobs: Record<string, { if: string; steps: { uses?: string; run?: string; with?: Record<string, string> }[] }>;
    };
    expect(Object.keys(wf.on).sort()).toEqual(["pull_request", "push"]);
    const record = wf.jobs.record;
    const compare = wf.jobs.compare;
    expect(record?.if).toMatch(/push/);
    expect(compare?.if).toMatch(/pull_request/);
    const uses = (job: typeof record) => job?.steps.map((s) => s.uses?.split("@")[0]).filter(Boolean);
    expect(uses(record)).toEqual(expect.arrayContaining(["actions/cache/restore", "actions/cache/save"]));
    const cached = record?.steps.filter((s) => s.uses?.startsWith("actions/cache/")).map((s) => s.with?.path);
    expect(new Set(cached)).toEqual(new Set([".catchup-bench/history.sqlite"]));
    const scripts = (job: typeof record) => job?.steps.map((s) => s.run ?? "").join("\n") ?? "";
    expect(scripts(compare)).toMatch(/git merge-base/);
    expect(scripts(compare)).toMatch(/gh pr comment/);
    expect(scripts(record)).toMatch(/history record --commits/);
  });

  it("would catch a broken workflow", () => {
    const broken = parseDocument(
      text
        .replace("actions/checkout@v4", "actions/checkout")
        .replace("steps.bench.outputs.code != '0'", "steps.benchh.outputs.code != '0'")
        .replace("runs-on: ubuntu-latest\n    permissions", "permissions"),
    ).toJS();
    const problems = workflowProblems(broken);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/actions\/checkout" is not pinned/),
        expect.stringMatching(/steps\.benchh is no earlier step's id/),
        expect.stringMatching(/jobs\.compare: no runs-on/),
      ]),
    );
  });
});
