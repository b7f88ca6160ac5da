// The failure summary of a report: errors grouped by kind with counts (a 1,000-client cell that
// failed one way is one line), bounded in size, every target text escaped, the sampled peaks of
// failed memory trials kept, crashes and the stop reason shown.
import { describe, expect, it } from "vitest";
import { emptyRow } from "../../scripts/bench/memory/memory.js";
import {
  crashLine,
  errorKinds,
  failureReport,
  failuresMarkdown,
  TRIALS_LISTED,
} from "../../scripts/report/failures.js";
import { type LatencyRow, type MemoryRow, RESULTS_SCHEMA, type Results } from "../../scripts/results/schema.js";
import { escapeText } from "../../scripts/util/escape.js";
import { testRunInfo } from "../support/run-info.js";

const results = (over: Partial<Results> = {}): Results => ({
  schema: RESULTS_SCHEMA,
  run: testRunInfo("2026-01-01T00:00:00.000Z"),
  variants: [],
  latency: [],
  memory: [],
  ...over,
});

const trial = { kind: "memory" as const, scriptBytes: 1048576, clients: 1000, mode: "memory" as const, trial: 1 };
/** A memory trial whose server died of V8 OOM after the sampler saw its peaks. */
const oom = (variant: string): MemoryRow => ({
  ...emptyRow({ ...trial, variant }, `samples/oom-${variant}.jsonl`, ""),
  peakHeapBytes: 3_900 * 1024 * 1024,
  peakRssBytes: 4_200 * 1024 * 1024,
  hwmRssBytes: 4_300 * 1024 * 1024,
  error: [
    ...Array.from({ length: 1000 }, (_, i) => `client ${i + 1}: socket closed before completion (code 1006)`),
    "target legacy exited (signal SIGABRT); last stderr lines: FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
  ].join("; "),
});

describe("escapeText", () => {
  it("escapes control characters, NULs, newlines, DEL and bidi overrides; leaves other text alone", () => {
    expect(escapeText("a\nb\r\tc\u0000d\u001b[31mred\u007f\u202eevil é ✓")).toBe(
      "a\\nb\\r\\tc\\x00d\\x1b[31mred\\x7f\\u202eevil é ✓",
    );
  });
});

describe("errorKinds", () => {
  it("folds 1,000 clients' identical errors into one kind with a count", () => {
    const kinds = errorKinds(oom("legacy").error as string);
    expect(kinds[0]).toEqual({ kind: "socket closed before completion (code 1006)", count: 999 });
    expect(kinds).toHaveLength(2);
    expect(kinds[1]?.count).toBe(1);
    expect(kinds[1]?.kind).toMatch(/JavaScript heap out of memory/);
  });

  it("keeps one error a single kind and escapes a target's newlines", () => {
    expect(errorKinds("defect: boom\nat x\u0000")).toEqual([{ kind: "defect: boom | at x\\x00", count: 1 }]);
  });
});

describe("failureReport and its Markdown", () => {
  it("a run of OOM-crashed memory cells: bounded, grouped, and the sampled peaks shown", () => {
    const memory = Array.from({ length: 24 }, (_, i) => ({ ...oom(i % 2 ? "batched" : "legacy"), trial: i + 1 }));
    const md = failuresMarkdown(failureReport(results({ memory }))).join("\n");
    expect(md.length).toBeLessThan(64 * 1024);
    expect(Math.max(...md.split("\n").map((l) => l.length))).toBeLessThan(2000);
    expect(md).toMatch(/\| socket closed before completion \(code 1006\) \| 23976 \| 24 \|/);
    expect(md).toMatch(/socket closed before completion \(code 1006\) \(×999\)/);
    expect(md).toMatch(/## Measured before the failure/);
    expect(md).toMatch(/\| memory 1048576 B x 1000 memory legacy trial 1 \| 3900\.0 \| 4200\.0 \| 4300\.0 \| n\/a \|/);
  });

  it("lists at most TRIALS_LISTED failed trials and counts the rest", () => {
    const latency: LatencyRow[] = Array.from({ length: TRIALS_LISTED + 7 }, (_, i) => ({
      case: "snapshot",
      variant: "legacy",
      trial: i + 1,
      ok: false,
      completionMs: null,
      firstChunkMs: null,
      chunks: 0,
      values: 0,
      bytes: 0,
      probeMs: null,
      error: "timed out",
    }));
    const md = failuresMarkdown(failureReport(results({ latency }))).join("\n");
    expect(md.match(/^- snapshot legacy trial/gm)).toHaveLength(TRIALS_LISTED);
    expect(md).toMatch(/… and 7 more failed trials/);
  });

  it("shows why the run stopped and each target crash, escaped", () => {
    const r = results({
      run: {
        ...results().run,
        interrupted: true,
        stopReason: "target b never became ready; last stderr lines:\nboom\u001b[2J",
      },
      targetCrashes: [
        {
          variant: "batched",
          matrix: "latency",
          at: "2026-01-01T00:00:05.000Z",
          during: "while idle between trials (seen before snapshot batched trial 2)",
          code: null,
          signal: "SIGKILL",
          stderrTail: "bye\u0000",
          affects: ["snapshot batched trial 2 and later batched trials ran on a restarted server"],
        },
      ],
    });
    const f = failureReport(r);
    const md = failuresMarkdown(f).join("\n");
    expect(md).toMatch(
      /## Stopped early\n\nThe run stopped before its plan finished: target b never became ready; last stderr lines: \\\| boom\\x1b\[2J/,
    );
    expect(md).toMatch(/## Target crashes/);
    expect(crashLine(f.crashes[0] as NonNullable<Results["targetCrashes"]>[number])).toBe(
      "latency target batched died (signal SIGKILL) at 2026-01-01T00:00:05.000Z, while idle between trials (seen before snapshot batched trial 2); affects snapshot batched trial 2 and later batched trials ran on a restarted server; last stderr: bye\\x00",
    );
  });

  it("says nothing for a clean run", () => {
    expect(failuresMarkdown(failureReport(results()))).toEqual([]);
  });
});

describe("report.md of a run whose memory servers all crashed out of memory", () => {
  it("shows the sampled peaks (not only n/a), groups the errors and stays under 64 KiB", async () => {
    const { renderReports, loadAssets } = await import("../../scripts/report/write.js");
    const variants = [
      { name: "legacy", kind: "bundled" as const, command: "x", role: "baseline" as const },
      { name: "batched", kind: "bundled" as const, command: "y", role: "candidate" as const },
    ];
    const memory = [oom("legacy"), oom("batched")];
    const { markdown, html } = renderReports(results({ variants, memory }), () => null, loadAssets());
    expect(Buffer.byteLength(markdown)).toBeLessThan(64 * 1024);
    expect(markdown).toMatch(/memory 1048576 B x 1000 memory batched trial 1 \| 3900\.0 \| 4200\.0/);
    expect(markdown).toMatch(/\(×999\)/);
    expect(html).toMatch(/<td>3900\.0<\/td>/);
  });
});

describe("a target that refuses the token behind a shell's job-control noise", () => {
  it("keeps the refusal, not bash's complaints, in the clip", () => {
    const error = `target main at ws://127.0.0.1:39489/ws did not complete a warm-up session within its start timeout (1 attempt in 295 ms of 60000): connected; the server answered the WebSocket upgrade with HTTP 401: {"_tag":"EnvironmentAuthInvalidError","code":"auth_invalid","reason":"invalid_credential","traceId":"cceb26491e02429dcbe151212a049b42"}; last stderr lines:\nDebugger listening on ws://127.0.0.1:42079/88227c01-c0bd-4910-b191-0892b6adbdab\nFor help, see: https://nodejs.org/learn/getting-started/debugging\nbash: cannot set terminal process group (28100): Inappropriate ioctl for device\nbash: no job control in this shell`;
    const kind = errorKinds(error)[0]?.kind ?? "";
    expect(kind).toMatch(/invalid_credential/);
    expect(kind).not.toMatch(/bash|last stderr lines/);
  });
});

describe("a target that cannot start, 6 times over", () => {
  // Each start prints Node's inspector banner with a random URL, listens on another port and serves
  // another private copy of the fixture: the same failure, in six spellings.
  const startFailure = (i: number) =>
    `target bad never became ready within 20000 ms (port ${40000 + i} did not accept connections); last stderr lines: | Debugger listening on ws://127.0.0.1:${35000 + i}/16a95312-4a4c-4eb2-91ae-1dc1e9f18c${i}0 | For help, see: https://nodejs.org/en/docs/inspector | ${"loading the store ... ".repeat(8)}| server-under-test: fixture /tmp/catchup-bench-${900 + i}-AbC${i}x/bad-${i}.sqlite: corrupt or truncated (database disk image is malformed)`;
  const rows = Array.from({ length: 6 }, (_, i) => ({
    ...emptyRow({ ...trial, clients: 1, variant: "bad", trial: i + 1 }, null, startFailure(i)),
    startFailed: true as const,
  }));

  it("is one kind (×6), and the clip keeps its real cause", () => {
    const f = failureReport(results({ memory: rows }));
    expect(f.kinds).toHaveLength(1);
    expect(f.kinds[0]?.count).toBe(6);
    expect(f.kinds[0]?.kind).toMatch(/^target bad never became ready within 20000 ms \(port N did not accept/);
    expect(f.kinds[0]?.kind).toMatch(/corrupt or truncated \(database disk image is malformed\)$/);
    expect(f.kinds[0]?.kind).not.toMatch(/Debugger listening|ws:\/\//);
    expect(f.kinds[0]?.kind.length).toBeLessThanOrEqual(240);
  });
});
