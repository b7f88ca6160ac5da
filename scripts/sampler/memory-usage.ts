// The heap lane's reading with the RSS split: one Runtime.evaluate of process.memoryUsage() in the
// target, in place of Runtime.getHeapUsage (which on Node 20's V8 answers usedSize and totalSize
// only). The same one round trip per tick; the target's own RSS comes in the same answer, so the
// components and the RSS they split are read at the same moment. Costs: docs/sampler.md.
import type { HeapUsage, InspectorClient } from "./inspector.js";

/** A heap reading with the rest of process.memoryUsage() (bytes). */
export interface MemoryUsageReading extends HeapUsage {
  external: number;
  arrayBuffers: number;
  rss: number;
}

// An array, not the object: five numbers to serialise. globalThis.process: a target may shadow `process`.
const EXPRESSION =
  "(()=>{const m=globalThis.process.memoryUsage();return [m.heapUsed,m.heapTotal,m.external,m.arrayBuffers,m.rss]})()";

/** Pure: the evaluate's value as a reading, or null when it is not five finite numbers. */
export function memoryUsageOf(value: unknown): MemoryUsageReading | null {
  if (!Array.isArray(value) || value.length !== 5 || !value.every((x) => typeof x === "number" && Number.isFinite(x)))
    return null;
  const [usedSize, totalSize, external, arrayBuffers, rss] = value as number[];
  return { usedSize, totalSize, external, arrayBuffers, rss } as MemoryUsageReading;
}

/** One Runtime.evaluate of process.memoryUsage(); rejects if the target cannot run it. */
export async function readMemoryUsage(inspector: InspectorClient, timeoutMs?: number): Promise<MemoryUsageReading> {
  const reading = memoryUsageOf(await inspector.evaluate<unknown>(EXPRESSION, timeoutMs));
  if (!reading) throw new Error("process.memoryUsage() in the target did not answer five numbers");
  return reading;
}
