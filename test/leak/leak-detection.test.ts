// End to end, leak cycles: a foreign target that keeps 64 KiB of heap per subscription is measured at
// that slope (within ±25%) with the verdict `leak`, and the guard on leakSlopeBytes FAILs it (exit 1),
// while its twin that keeps nothing is `no-leak`; the bundled server, after its warm-up cycles, is
// `no-leak` at the default threshold. Each run also writes the leak table and chart.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { startBench } from "../bench/bench-child.js";

const TARGET = fileURLToPath(new URL("./targets/leaky.mjs", import.meta.url));
const RETAIN_KIB = 64;
const CYCLES = 12;
/** The default --leak-warmup: even a tiny ws server's heap grows for its first ~20 cycles (JIT code, feedback). */
const DEFAULT_WARMUP = 20;

let dir: string;
const runs: Record<"foreign" | "bundled", { code: number | null; stdout: string; results: Results; out: string }> =
  {} as never;

async function bench(name: "foreign" | "bundled", args: string[]): Promise<void> {
  const out = join(dir, name);
  const child = startBench([
    "--leak-only",
    "--leak-cycles",
    String(CYCLES),
    "--clients",
    "1",
    "--ack-delay-ms",
    "0",
    "--hold-ms",
    "0",
    "--quick",
    "--out",
    out,
    ...args,
  ]);
  const { code } = await child.exit(170_000);
  const stdout = child.stdout();
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
  runs[name] = { code, stdout: `${stdout}\n${child.stderr()}`, results, out };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catchup-leak-"));
  await Promise.all([
    bench("foreign", [
      "--ceiling",
      "1.03",
      "--guard",
      "leakSlopeBytes",
      "--target",
      `tight=node ${TARGET} --port {port} --retain-kib 0`,
      "--target",
      `leaky=node ${TARGET} --port {port} --retain-kib ${RETAIN_KIB}`,
    ]),
    // The default warm-up: the bundled server's heap settles over its first cycles (docs/measurements.md).
    bench("bundled", ["--variants", "legacy"]),
  ]);
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("leak cycles on a foreign target that retains a known amount per subscription", () => {
  it("finds the retained KiB per cycle within ±25% and the verdict leak", () => {
    const { results, stdout } = runs.foreign;
    const leaky = results.leak?.find((r) => r.variant === "leaky");
    expect(leaky, stdout).toBeDefined();
    expect(leaky?.cycles).toBe(CYCLES);
    expect(leaky?.points).toHaveLength(CYCLES + DEFAULT_WARMUP);
    const slope = leaky?.slopeBytesPerCycle ?? 0;
    expect(slope).toBeGreaterThan(RETAIN_KIB * 1024 * 0.75);
    expect(slope).toBeLessThan(RETAIN_KIB * 1024 * 1.25);
    expect(leaky?.verdict).toBe("leak");
    expect(leaky?.fdSlopePerCycle).toBe(0);
  });

  it("finds no leak in the twin that retains nothing", () => {
    const tight = runs.foreign.results.leak?.find((r) => r.variant === "tight");
    expect(tight?.verdict, runs.foreign.stdout).toBe("no-leak");
    expect(Math.abs(tight?.slopeBytesPerCycle ?? Number.POSITIVE_INFINITY)).toBeLessThan(RETAIN_KIB * 1024 * 0.25);
  });

  it("fails the guard on leakSlopeBytes naming the candidate, and exits 1", () => {
    const { code, stdout } = runs.foreign;
    expect(code, stdout).toBe(EXIT.regression);
    expect(stdout).toMatch(/^leakSlopeBytes leaky: heap slope \d+\.\d KiB\/cycle .*: FAIL \(leak\)$/m);
  });

  it("writes the leak table to report.md and a chart per variant to report.html", () => {
    const md = readFileSync(join(runs.foreign.out, "report.md"), "utf8");
    expect(md).toContain("## Leak: post-GC heap per reconnect cycle");
    expect(md).toMatch(/^\| leaky \(candidate\) \| 12 \(20\) \| 1 \| \+\d+\.\d \[.*\| leak \|$/m);
    const html = readFileSync(join(runs.foreign.out, "report.html"), "utf8");
    expect(html).toContain('id="leak-0"');
    expect(html).toContain('id="leak-1"');
  });
});

describe("leak cycles on the bundled server", () => {
  it("reports no-leak at the default threshold after the default warm-up", () => {
    const { results, stdout, code } = runs.bundled;
    expect(code, stdout).toBe(EXIT.ok);
    const row = results.leak?.[0];
    expect(row?.variant).toBe("legacy");
    expect(row?.cycles).toBe(CYCLES);
    expect(row?.error ?? null, stdout).toBeNull();
    expect(row?.verdict, JSON.stringify(row?.points.map((p) => p.postGcHeapBytes))).toBe("no-leak");
  });
});
