// results.jsonl gets every row as it finishes; results.json appears only whole (temp + rename);
// a results.jsonl alone is enough to rebuild the results after a crash.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { attributionRow } from "../../scripts/bench/memory/attribute.js";
import { emptyRow } from "../../scripts/bench/memory/memory.js";
import { ResultsFile, resultsFromJsonl } from "../../scripts/results/journal.js";
import type { LatencyRow, MemoryRow, RunInfo } from "../../scripts/results/schema.js";
import { fillCommand } from "../../scripts/server-process/command.js";
import { clearSecrets, registerSecret, secretTag } from "../../scripts/util/redact.js";

const run: RunInfo = {
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: null,
  node: "v20.20.2",
  cpuModel: "test cpu",
  cores: 2,
  loadAverage: [0, 0, 0],
  gitCommit: null,
  config: { trials: 1 },
};
const latency = (trial: number): LatencyRow => ({
  case: "snapshot",
  variant: "legacy",
  trial,
  ok: true,
  completionMs: 10 + trial,
  firstChunkMs: 5,
  chunks: 2,
  values: 2,
  bytes: 100,
  probeMs: 1,
  error: null,
});
const memory: MemoryRow = emptyRow(
  { kind: "memory", scriptBytes: 1024, clients: 1, mode: "memory", variant: "legacy", trial: 1 },
  null,
  "target legacy exited (signal SIGKILL)",
);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  clearSecrets();
});

describe("ResultsFile", () => {
  it("appends each row to results.jsonl at once and writes results.json only at the end", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-results-"));
    const file = new ResultsFile(dir, { ...run }, [
      { name: "legacy", kind: "bundled", command: "x", role: "baseline" },
    ]);
    file.addLatency(latency(1));
    file.addMemory(memory);
    file.addLatency(latency(2), true);
    const lines = readFileSync(join(dir, "results.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).kind)).toEqual(["run", "latency", "memory", "latency"]);
    expect(existsSync(join(dir, "results.json"))).toBe(false);

    const results = file.finish("2026-01-01T00:01:00.000Z", true);
    const onDisk = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    expect(onDisk).toEqual(results);
    expect(onDisk.run.finishedAt).toBe("2026-01-01T00:01:00.000Z");
    expect(onDisk.run.interrupted).toBe(true);
    expect(onDisk.latency).toEqual([latency(1)]);
    expect(onDisk.memory).toEqual([memory]);
    expect(onDisk.aa).toEqual({ latency: [latency(2)], memory: [] });
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  it("rebuilds the results from results.jsonl alone", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-results-"));
    const file = new ResultsFile(dir, { ...run }, []);
    file.addLatency(latency(1));
    file.addMemory(memory, true);
    const rebuilt = resultsFromJsonl(join(dir, "results.jsonl"));
    expect(rebuilt.latency).toEqual([latency(1)]);
    expect(rebuilt.aa?.memory).toEqual([memory]);
    expect(rebuilt.run.config).toEqual({ trials: 1 });
  });
});

describe("fillCommand", () => {
  it("fills {port} and {db} everywhere and refuses a db path a shell would split", () => {
    expect(fillCommand("sh -c 'serve --db {db} --port {port}' # {port}", 4321, "/tmp/a-1.sqlite")).toBe(
      "sh -c 'serve --db /tmp/a-1.sqlite --port 4321' # 4321",
    );
    expect(() => fillCommand("x {db}", 1, "/tmp/my dir/a.sqlite")).toThrow(/unsafe in a shell command/);
  });

  it("writes a token of any length only as its digest, and keys that spell it stay keys", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-results-"));
    // "run" is also a key of every results file: redacting the text would break the JSON.
    for (const token of ["abc", "run"]) registerSecret(token);
    const file = new ResultsFile(dir, { ...run, config: { token: "abc", note: "abcdef keeps" } }, [
      { name: "legacy", kind: "command", command: "node s.js --token abc --x run", role: "baseline" },
    ]);
    file.addLatency({ ...latency(1), ok: false, error: "refused abc" });
    file.finish("2026-01-01T00:01:00.000Z", null);
    for (const name of ["results.json", "results.jsonl"]) {
      const text = readFileSync(join(dir, name), "utf8");
      expect(text, name).not.toMatch(/\babc\b|\brun\b(?!")/);
      expect(text, name).toContain(secretTag("abc"));
    }
    const onDisk = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    expect(onDisk.run.config).toEqual({ token: secretTag("abc"), note: "abcdef keeps" });
    expect(onDisk.variants[0].command).toBe(`node s.js --token ${secretTag("abc")} --x ${secretTag("run")}`);
    expect(resultsFromJsonl(join(dir, "results.jsonl")).latency[0]?.error).toBe(`refused ${secretTag("abc")}`);
  });

  it("keeps --attribute's rows apart from the measured memory rows, in results.jsonl and when rebuilt", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-results-"));
    const file = new ResultsFile(dir, { ...run }, [
      { name: "legacy", kind: "bundled", command: "x", role: "baseline" },
    ]);
    file.addMemory(memory);
    const row = attributionRow(
      { kind: "memory", scriptBytes: 1024, clients: 1, mode: "memory", variant: "legacy", trial: 1 },
      { ...memory, ok: true, error: null, peakHeapBytes: 5 },
      {
        profile: {
          head: { callFrame: { functionName: "f", url: "file:///a.js", lineNumber: 0 }, selfSize: 7, children: [] },
        },
        taken: "peak",
        heapAtProfileBytes: 5,
        requests: 1,
      },
      "profiles/p.heapprofile",
      null,
    );
    file.addAttribution(row, 32768);
    expect(file.results.memory).toHaveLength(1);
    expect(file.results.attribution?.rows.map((r) => [r.kind, r.sampledBytes, r.ok])).toEqual([["peak", 7, true]]);
    const rebuilt = resultsFromJsonl(join(dir, "results.jsonl"));
    expect(rebuilt.memory).toEqual(file.results.memory);
    expect(rebuilt.attribution).toEqual({ intervalBytes: 32768, rows: [row] });
  });
});
