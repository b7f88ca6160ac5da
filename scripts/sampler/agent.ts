// The standalone sampling agent (`catchup-bench sample`): the bench's two-lane sampler pointed at a
// server it did not start, on the server's host, for load that runs elsewhere (k6-operator runners).
// Every line is stamped with wall-clock time so the runners' phase marks can be aligned with it;
// beside the samples it records the kernel's peak RSS and the target's CPU time every procIntervalMs.
// The file is written as the lanes hand over their readings (every batchMs), so a SIGKILL loses at
// most that much. Signals and the command line stay in commands/sample.ts; this is callable code.
import { lstatSync } from "node:fs";
import { hostname } from "node:os";
import { isDiskFull } from "../../common/disk-full.js";
import { appendWholeLines, cutToLastNewline } from "../util/whole-lines.js";
import { cpuTimeMsOrNull } from "./cpu.js";
import type { InspectorClient } from "./inspector.js";
import { readVmHwm, resetVmHwm } from "./procfs.js";
import { postGcHeap, type Sampler, type SamplerSummary, startSampler } from "./sampler.js";
import { stampWall } from "./wall-clock.js";

/** Which file format the agent writes: the bench's samples lines, plus "wall", "hwm"/"cpuMs" and "agent"/"end" lines. */
export const AGENT_SAMPLES_FORMAT = "catchup-bench/agent-samples@1";

export interface AgentOptions {
  pid: number;
  /** The server's listening port when the target was found by it (recorded in the file). */
  port: number | null;
  inspector: InspectorClient | null;
  /** The samples file (JSONL); must not exist yet. */
  file: string;
  intervalMs: number;
  heapIntervalMs?: number;
  /** How often VmHWM and the target's CPU time are recorded (ms). */
  procIntervalMs: number;
  /** How often the RSS lane's readings are written (ms): what a SIGKILL can lose. */
  flushMs: number;
}

export interface AgentResult {
  summary: SamplerSummary;
  /** Heap used after the forced GC at the end (bytes); null when not asked or impossible. */
  postGcHeapBytes: number | null;
  /** Why a requested GC could not run, or null. */
  gcError: string | null;
  /** The file could not be written (sampling stopped there; the file ends on a whole line): one line, or null. */
  fileError: string | null;
}

export interface Agent {
  readonly pid: number;
  /** The inspector's url, or null when sampling RSS only. */
  readonly inspectorUrl: string | null;
  /** Resolves when sampling ended by itself (target exited, inspector closed), with the reason. */
  readonly endedBySelf: Promise<string>;
  /** Marks the moment in the file ("mark" line) and, with an inspector, forces a GC and records the heap after it ("gc" line). */
  gcMark(reason: string): Promise<number | null>;
  /** Ends sampling; with gcAtEnd, forces a GC afterwards and appends its "gc" line, then the "end" line. Idempotent. */
  stop(options: { gcAtEnd: boolean; reason: string }): Promise<AgentResult>;
}

const GC_TIMEOUT_MS = 30_000;

export class AgentFileError extends Error {
  override readonly name = "AgentFileError";
}

/** Why `file` cannot be the agent's new samples file (anything there, a link to nothing included), or null. */
export function agentFileProblem(file: string): string | null {
  let what: string;
  try {
    const st = lstatSync(file);
    what = st.isSymbolicLink() ? "a symbolic link" : st.isDirectory() ? "a directory" : "a file";
  } catch {
    return null;
  }
  return `--out ${file} exists already (${what}); the agent never overwrites: give a new file name`;
}

/** One line for a failed write of the samples file: a full disk says so. */
function fileErrorLine(file: string, e: NodeJS.ErrnoException): string {
  const disk = isDiskFull(e) ? "disk full: " : "";
  return `${disk}cannot write ${file} (${e.code ?? e.message}); sampling stopped, the file keeps every whole line written`;
}

/** Set-up: the exclusive samples file and the sampler writing it, wall-stamped, its first line the agent's. */
async function openAgentSampler(
  options: AgentOptions,
  origin: number,
  hwmReset: boolean,
  failed: (e: NodeJS.ErrnoException) => void,
): Promise<Sampler> {
  const { pid, inspector, file } = options;
  let sampler: Sampler;
  try {
    sampler = await startSampler({
      pid,
      inspector,
      intervalMs: options.intervalMs,
      heapIntervalMs: options.heapIntervalMs,
      file,
      exclusive: true,
      onFileError: failed,
      origin,
      resetHwm: false,
      wallClock: true,
      batchMs: options.flushMs,
    });
  } catch (e) {
    // The exclusive create lost to an entry made meanwhile, or a link: refused like one found before.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ELOOP")
      throw new AgentFileError(agentFileProblem(file) ?? `--out ${file}: ${code}`);
    throw e;
  }
  sampler.mark("agent", {
    format: AGENT_SAMPLES_FORMAT,
    pid,
    port: options.port,
    host: hostname(),
    inspector: inspector?.url ?? null,
    heap: inspector !== null,
    intervalMs: options.intervalMs,
    heapIntervalMs: inspector ? (options.heapIntervalMs ?? null) : null,
    procIntervalMs: options.procIntervalMs,
    hwmReset,
  });
  return sampler;
}

/** Run: VmHWM and CPU time lines every procIntervalMs, one reading at a time. */
function procLines(sampler: Sampler, pid: number) {
  let busy = false;
  /** The highest VmHWM a line of the file holds: the end line never says less than the file. */
  let highestHwm: number | null = null;
  const record = async () => {
    if (busy || !sampler.running) return;
    busy = true;
    try {
      let hwm: number | null = null;
      try {
        hwm = readVmHwm(pid);
      } catch {
        // gone: the sampler ends by itself
      }
      const cpuMs = await cpuTimeMsOrNull(pid);
      if (sampler.running) {
        sampler.record({ hwm, cpuMs: cpuMs === null ? null : Math.round(cpuMs) });
        if (hwm !== null) highestHwm = Math.max(highestHwm ?? 0, hwm);
      }
    } finally {
      busy = false;
    }
  };
  return { record, highestHwm: () => highestHwm };
}

/** Drain: the full GC asked for at the end, after the lanes stopped (a full GC holds the inspector, and that stall is ours). */
async function gcAtEnd(inspector: InspectorClient | null): Promise<{ postGc: number | null; gcError: string | null }> {
  if (!inspector || inspector.isClosed)
    return { postGc: null, gcError: inspector ? "the inspector closed" : "no inspector (RSS only)" };
  try {
    return { postGc: await postGcHeap(inspector, { timeoutMs: GC_TIMEOUT_MS }), gcError: null };
  } catch (e) {
    return { postGc: null, gcError: (e as Error).message };
  }
}

/** Resets the target's peak RSS; false where not permitted (VmHWM then covers the process's whole life). */
function tryResetHwm(pid: number): boolean {
  try {
    resetVmHwm(pid);
    return true;
  } catch {
    // not permitted (another user's process): VmHWM then covers the process's whole life, and the file says so
    return false;
  }
}

/** The samples file's first write error (the sampler's or ours), and the lines appended after sampling. */
function agentFileWriter(file: string, origin: number) {
  let fileError: string | null = null;
  const failed = (e: NodeJS.ErrnoException) => {
    fileError ??= fileErrorLine(file, e);
  };
  /**
   * A line after sampling ended: t on the same clock, wall from Date.now(); appended synchronously,
   * whole or not at all. After a failed write, the torn tail the stream left is cut off first.
   */
  const appendLine = (fields: Record<string, unknown>) => {
    const t = performance.now() - origin;
    const line = JSON.stringify({ t: Math.round(t * 1000) / 1000, ...fields });
    try {
      if (fileError !== null) cutToLastNewline(file);
      appendWholeLines(file, `${stampWall(line, Date.now())}\n`);
    } catch (e) {
      failed(e as NodeJS.ErrnoException);
    }
  };
  return { failed, appendLine, error: () => fileError };
}

/** The peak RSS for the end line: the kernel's last VmHWM, never below one a line of the file holds. */
function finalHwm(pid: number, sampled: number | null, highestHwm: number | null): number | null {
  let hwm = sampled;
  try {
    hwm = readVmHwm(pid) ?? hwm;
  } catch {
    // gone
  }
  // A reading taken after the process ended (or never) must not undercut one already written.
  if (highestHwm !== null) hwm = Math.max(hwm ?? 0, highestHwm);
  return hwm;
}

interface RunningAgent {
  options: AgentOptions;
  sampler: Sampler;
  proc: ReturnType<typeof procLines>;
  procTimer: NodeJS.Timeout;
  writer: ReturnType<typeof agentFileWriter>;
  hwmReset: boolean;
}

/** Stop and drain: the last figures, the lanes stopped, the GC at the end, the end line. */
async function finishAgent(a: RunningAgent, gcAsked: boolean, reason: string): Promise<AgentResult> {
  const { pid, inspector } = a.options;
  clearInterval(a.procTimer);
  // The last VmHWM and CPU figures go in before the lanes stop.
  await a.proc.record();
  const summary = await a.sampler.stop();
  let postGc: number | null = null;
  let gcError: string | null = null;
  if (gcAsked) {
    ({ postGc, gcError } = await gcAtEnd(inspector));
    a.writer.appendLine({ phase: "gc", heapUsed: postGc, reason: "gc-at-end", ...(gcError ? { error: gcError } : {}) });
  }
  const hwm = finalHwm(pid, summary.hwmRssBytes, a.proc.highestHwm());
  a.writer.appendLine({
    phase: "end",
    reason: a.writer.error() ?? summary.error ?? reason,
    rssSamples: summary.rssSamples,
    heapSamples: summary.heapSamples,
    peakRssBytes: summary.peakRssBytes,
    peakHeapBytes: summary.peakHeapBytes,
    hwmRssBytes: hwm,
    hwmReset: a.hwmReset,
    postGcHeapBytes: postGc,
    targetCpuMs: summary.targetCpuMs,
    interval: summary.interval,
    heapInterval: summary.heapInterval,
    missedSlots: summary.missedSlots,
  });
  await inspector?.close(1_000);
  return { summary: { ...summary, hwmRssBytes: hwm }, postGcHeapBytes: postGc, gcError, fileError: a.writer.error() };
}

/** A "mark" line and, with an inspector, a forced GC and the heap after it ("gc" line). */
async function gcMark(sampler: Sampler, inspector: InspectorClient | null, reason: string): Promise<number | null> {
  if (!sampler.running) return null;
  const asked = sampler.mark("mark", { reason });
  if (!inspector) return null;
  try {
    const heapUsed = await postGcHeap(inspector, { timeoutMs: GC_TIMEOUT_MS });
    sampler.mark("gc", { heapUsed, reason, asked: Math.round(asked * 1000) / 1000 });
    return heapUsed;
  } catch (e) {
    sampler.mark("gc", { heapUsed: null, reason, error: (e as Error).message });
    return null;
  }
}

/** Starts sampling; rejects when the file exists already or the target cannot be sampled. */
export async function startAgent(options: AgentOptions): Promise<Agent> {
  const { pid, inspector, file } = options;
  // Never over another run's samples: nothing measured is lost to a repeated command line.
  const problem = agentFileProblem(file);
  if (problem) throw new AgentFileError(problem);
  const hwmReset = tryResetHwm(pid);
  const origin = performance.now();
  const writer = agentFileWriter(file, origin);
  const sampler = await openAgentSampler(options, origin, hwmReset, writer.failed);
  const proc = procLines(sampler, pid);
  void proc.record();
  const procTimer = setInterval(() => void proc.record(), options.procIntervalMs);
  const endedBySelf = sampler.ended.then((s) => s.error ?? "stopped");
  const running: RunningAgent = { options, sampler, proc, procTimer, writer, hwmReset };
  let result: Promise<AgentResult> | null = null;
  return {
    pid,
    inspectorUrl: inspector?.url ?? null,
    endedBySelf,
    gcMark: (reason) => gcMark(sampler, inspector, reason),
    stop({ gcAtEnd: gcAsked, reason }) {
      result ??= finishAgent(running, gcAsked, reason);
      return result;
    },
  };
}
