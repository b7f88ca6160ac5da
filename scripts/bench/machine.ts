// Facts about the machine a run happened on (RunInfo), read once at the start.
import { cpus, loadavg, release, totalmem } from "node:os";
import type { RunInfo } from "../results/schema.js";

/** The machine's facts; `gitCommit` is the harness's (bench/command-line.ts harnessOf). */
export function runInfo(config: Record<string, unknown>, gitCommit: string | null, startedAt = new Date()): RunInfo {
  const cpu = cpus();
  return {
    startedAt: startedAt.toISOString(),
    finishedAt: null,
    node: process.version,
    cpuModel: cpu[0]?.model.trim() ?? "unknown",
    cores: cpu.length,
    memoryBytes: totalmem(),
    kernel: release(),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    gitCommit,
    config,
  };
}

/** reports/<timestamp> name: sortable, file-name safe, UTC. */
export function runDirName(d = new Date()): string {
  return d
    .toISOString()
    .replace(/:/g, "-")
    .replace(/\.\d+Z$/, "Z");
}
