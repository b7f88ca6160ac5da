// Renders docs/cli.md from the options tables and the exit codes (pure). A unit test checks the
// committed page equals this output, so the flag reference cannot drift from the CLI.
import { METRICS as K6_METRICS } from "../../scenarios/lib/summary.js";
import { absoluteFloorText } from "../results/metric-floor.js";
import { floorUnitOf, HEADLINE, JUDGED_METRICS, type JudgedMetric, metricOf } from "../results/metric-names.js";
import { EXIT, EXIT_MEANINGS } from "../util/exit-codes.js";
import { COMMAND_SPECS } from "./commands.js";
import { type CommandSpec, defaultShown, type OptionSpec, typeShown } from "./spec.js";

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => (text.includes("`") ? `\`\` ${text} \`\`` : `\`${text}\``);

function optionRows(entries: [string, OptionSpec][]): string[] {
  return [
    "| Flag | Type | Default | Description |",
    "|------|------|---------|-------------|",
    ...entries.map(([flag, o]) => {
      const shown = defaultShown(o);
      const dflt = shown === undefined ? "" : o.defaultText !== undefined ? cell(shown) : code(cell(shown));
      const name = o.type === "boolean" && o.default === true ? `--${flag}, --no-${flag}` : `--${flag}`;
      return `| ${code(name)} | ${cell(typeShown(o))} | ${dflt} | ${cell(o.describe)} |`;
    }),
  ];
}

function commandSection(spec: CommandSpec): string[] {
  const lines = [`## \`catchup-bench ${spec.command}\``, "", spec.describe, ""];
  const positionals = Object.entries(spec.positionals ?? {});
  if (positionals.length > 0) {
    lines.push("| Argument | Description |", "|----------|-------------|");
    for (const [name, p] of positionals) {
      const choices = p.choices ? ` (${p.choices.join(", ")})` : "";
      lines.push(`| ${code(`<${name}>`)} | ${cell(p.describe + choices)} |`);
    }
    lines.push("");
  }
  const entries = Object.entries(spec.options);
  const groups = [...new Set(entries.map(([, o]) => o.group ?? ""))];
  for (const group of groups) {
    if (group !== "") lines.push(`**${group.replace(/:$/, "")}**`, "");
    lines.push(...optionRows(entries.filter(([, o]) => (o.group ?? "") === group)), "");
  }
  if (entries.length === 0 && !spec.notes) lines.push("No flags.", "");
  if (spec.notes) lines.push(spec.notes, "");
  return lines;
}

const MATRIX_WHERE = { latency: "latency cases", memory: "memory cells", storm: "storm cells", leak: "leak cycles" };

/** A metric's floor as the table states it: "1%, 1 ms"; the leak slope's threshold flag. */
function floorText(m: JudgedMetric): string {
  const rule = metricOf(m).floor;
  return rule ? `${rule.percent}%, ${absoluteFloorText(rule.absolute, floorUnitOf(m))}` : "`--leak-threshold-kib`";
}

/** Each floor rule once: its size, the metrics that have it, and why. */
function floorsList(): string[] {
  const rules = [...new Set(JUDGED_METRICS.map((m) => metricOf(m).floor))].flatMap((r) => (r ? [r] : []));
  return rules.map((rule) => {
    const metrics = JUDGED_METRICS.filter((m) => metricOf(m).floor === rule);
    return `- ${floorText(metrics[0] as JudgedMetric)} (${metrics.map(code).join(", ")}): ${rule.why}.`;
  });
}

/**
 * The metrics, from the metric table (results/metric-names.ts): what each is, where and in what it is
 * measured and shown, its floor, its place in the report, and the k6 metric a session figure is recorded as.
 */
function metricsSection(): string[] {
  const k6 = K6_METRICS as Record<string, string | undefined>;
  const yes = (b: boolean) => (b ? "yes" : "no");
  return [
    "## Metrics",
    "",
    "Every figure the harness judges, as `--guard` names it and results.json's `verdicts` hold it. Ratios are",
    "candidate / baseline; for every figure lower is better. Unit: as results.json holds it; shown: in the",
    "reports. Headline: in the summary block on top of the report (its place there); stops rounds: the",
    "sequential rounds stop a cell only once it is DIFFERENT or SAME; compact: keeps its per-cell verdict table",
    "when report.md must shorten to fit one comment. A latency metric is a figure of each client session,",
    "recorded under k6 as the metric named.",
    "",
    "| Metric | Measured per | Unit | Shown | Practical floor | What it is | Headline | Stops rounds | Compact | k6 metric |",
    "|--------|--------------|------|-------|-----------------|------------|----------|--------------|---------|-----------|",
    ...JUDGED_METRICS.map((m) => {
      const d = metricOf(m);
      const name = k6[m];
      const place = HEADLINE.indexOf(m);
      const cells = [
        code(m),
        MATRIX_WHERE[d.matrix],
        d.unit,
        d.scale.unit,
        floorText(m),
        cell(d.explains),
        place < 0 ? "no" : `yes (${place + 1})`,
        yes(d.stopsRounds === true),
        yes(d.compact),
        name ? code(name) : "",
      ];
      return `| ${cells.join(" | ")} |`;
    }),
    "",
    "Practical floors: a change is no practical change when it is under either part (relative, or absolute in",
    "the metric's unit) and its whole interval lies inside the floor too; `--min-effect` replaces parts",
    "([statistics.md](statistics.md#practical-floors-per-metric)).",
    "",
    ...floorsList(),
    "",
  ];
}

/** The whole page. */
export function renderCliDoc(specs: readonly CommandSpec[] = COMMAND_SPECS): string {
  const lines = [
    "# Command-line reference",
    "",
    "<!-- Generated from scripts/options/ by `npm run docs:cli`; do not edit by hand. -->",
    "",
    "Every command also takes `--help`; `catchup-bench --version` prints the version. Numbers are decimal,",
    "with or without an exponent (`1000`, `1e3`, `0.0000001`, `1e-7`), within the flag's range; an integer flag",
    "takes whole numbers (`1.5`, `0x10` and `Infinity` are refused). A single-value flag may be given once; lists",
    "are comma-separated or given by repeating the flag. A bad flag is one line on stderr and exit 2.",
    "",
    "The bearer token of `bench` comes from `--token`, else `--token-file`, else the environment",
    "variable `CATCHUP_TOKEN`, else the bundled server's dev token. It is never written: results, logs",
    "and stderr show `redacted (sha256 prefix XXXXXXXX)` instead, as they do for `?token=` and",
    "`?wsTicket=` in URLs and for `Authorization` headers.",
    "",
  ];
  for (const spec of specs) lines.push(...commandSection(spec));
  lines.push(...metricsSection());
  lines.push("## Exit codes", "", "| Code | Meaning |", "|------|---------|");
  for (const [name, value] of Object.entries(EXIT)) {
    lines.push(`| ${value} | ${cell(EXIT_MEANINGS[name as keyof typeof EXIT])} |`);
  }
  return `${lines.join("\n")}\n`;
}
