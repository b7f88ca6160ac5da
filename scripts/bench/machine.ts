// Facts about the machine and checkout a run happened on (RunInfo), read once at the start.
import { execFileSync } from "node:child_process";
import { cpus, loadavg, release, totalmem } from "node:os";
import type { RunInfo } from "../results/schema.js";

function gitCommit(cwd: string): string | null {
  try {
    const out = execFileSync("git", ["rev-parse", "HEAD"], { cwd, stdio: ["ignore", "pipe", "ignore"], timeout: 5000 });
    return out.toString().trim() || null;
  } catch {
    return null;
  }
}

export function runInfo(config: Record<string, unknown>, cwd: string, startedAt = new Date()): RunInfo {
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
    gitCommit: gitCommit(cwd),
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
