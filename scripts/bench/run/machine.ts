// Facts about the machine a run happened on (RunInfo), read once at the start.
import { cpus, loadavg, release, totalmem } from "node:os";
import type { RunInfo } from "../../results/schema.js";
import type { Calibration } from "../progress/eta.js";

/** The machine's facts; `gitCommit` is the harness's (bench/run/command-line.ts harnessOf). */
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

/**
 * CPU time of the calibration work as a bench process reads it on the 2-core machine the priors were
 * measured on, quiet (16.2–17.0 ms in 3 runs; a fresh `node -e` reads about 26 ms, its JSON code not
 * yet warm, and a loaded machine more: 35 ms at load 18).
 */
export const CALIBRATION_REFERENCE_CPU_MS = 16.6;

/**
 * A fixed piece of CPU work (JSON out and back, as the clients and server do), timed in CPU and wall
 * time, with the load average: what the first estimate scales its priors by (eta.ts machineScale).
 * Blocks this thread for about CALIBRATION_REFERENCE_CPU_MS on the reference machine.
 */
export function calibrate(): Calibration {
  const item = { id: "project-000", title: "x".repeat(200), events: Array.from({ length: 20 }, (_, i) => ({ i })) };
  const batch = Array.from({ length: 50 }, () => item);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let sink = 0;
  for (let i = 0; i < 100; i++) sink += (JSON.parse(JSON.stringify(batch)) as unknown[]).length;
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    cpuMs: sink > 0 ? (cpu.user + cpu.system) / 1000 : 0,
    wallMs,
    referenceCpuMs: CALIBRATION_REFERENCE_CPU_MS,
    load1: loadavg()[0] ?? 0,
    cores: cpus().length,
  };
}
