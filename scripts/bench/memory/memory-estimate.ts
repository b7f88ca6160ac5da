// Before a memory matrix starts: will it fit? Each client of a memory cell makes the server build
// and hold its catch-up frame (scripts cross the wire twice in a cold snapshot), and the Node driver
// receives and parses the same frame. A run whose cells cannot fit the server's heap or this
// machine's memory would only produce crashed servers (V8 out of memory) after minutes of work, so
// it is refused up front, with the estimate and the way to run it anyway. Pure apart from
// `machineLimits()`.
import { readFileSync } from "node:fs";
import { freemem } from "node:os";
import v8 from "node:v8";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** Bytes of one catch-up frame beyond the scripts: per-project shell, per-event entry (generous). */
const PROJECT_OVERHEAD = 600;
const EVENT_OVERHEAD = 300;
/**
 * Server heap per byte of frame per client: the encoded JSON string, the item objects it was made
 * from, and the socket's send buffer are alive at once. Deliberately round: the point is to catch
 * runs that are off by orders of magnitude, not to predict the peak.
 */
export const SERVER_FACTOR = 3;
/** The client side (the Node driver: received text, parsed objects) per byte of frame per client. */
export const CLIENT_FACTOR = 3;
/** An idle server and the harness itself, before any client (measured: ~120-150 MB RSS each). */
export const BASE_BYTES = 320 * MIB;
/** V8 cannot hold a string longer than this (2^29 - 24 one-byte characters on 64-bit Node 20). */
export const MAX_STRING_BYTES = 2 ** 29 - 24;
/** Warn above this share of what the machine has available. */
export const WARN_SHARE = 0.5;

export interface CellShape {
  scriptBytes: number;
  clients: number;
  mode: string;
}

export interface FixtureShape {
  projects: number;
  events: number;
}

export interface Limits {
  /** The server's V8 heap limit, when known (bundled targets run the same node as the harness). */
  heapLimitBytes: number | null;
  /** Memory this machine has available now (MemAvailable). */
  availableBytes: number;
}

/** The estimated size of one client's catch-up frame for a memory cell. */
export function frameBytes(cell: CellShape, fixture: FixtureShape): number {
  return fixture.projects * (2 * cell.scriptBytes + PROJECT_OVERHEAD) + fixture.events * EVENT_OVERHEAD;
}

export interface CellNeed {
  cell: CellShape;
  frameBytes: number;
  serverHeapBytes: number;
  machineBytes: number;
}

export function cellNeed(cell: CellShape, fixture: FixtureShape): CellNeed {
  const frame = frameBytes(cell, fixture);
  return {
    cell,
    frameBytes: frame,
    serverHeapBytes: cell.clients * frame * SERVER_FACTOR,
    machineBytes: BASE_BYTES + cell.clients * frame * (SERVER_FACTOR + CLIENT_FACTOR),
  };
}

export interface MemoryCheck {
  verdict: "ok" | "warn" | "refuse";
  /** One line: the worst cell, its estimate, the limit, and what to do. Empty when ok. */
  line: string;
  worst: CellNeed | null;
}

/** "4.12 GiB", or "2.7 MiB" below 1 GiB (a 1 KiB fixture's frame read "0.00 GiB"). */
const gib = (b: number) => (b < GIB ? `${(b / MIB).toFixed(1)} MiB` : `${(b / GIB).toFixed(b < 10 * GIB ? 2 : 0)} GiB`);

/** What the cells are, for the line: memory cells, or storm cells connecting all at once. */
export type CellKind = "memory" | "storm";
const NOUN: Record<CellKind, string> = { memory: "memory cell", storm: "storm cell" };
const HOW: Record<CellKind, string> = {
  memory: "lower --clients or --script-bytes, or pass --no-memory-check to run it anyway",
  storm: "spread the connects with --storm-ramp-ms, or lower --storm or --script-bytes",
};

/**
 * Judges the memory cells of a run against the limits: refuse when one frame cannot exist (longer
 * than V8's longest string), when a cell's server heap estimate exceeds the heap limit, or when
 * its machine estimate exceeds what is available; warn above WARN_SHARE of it.
 */
export function checkMemory(
  cells: CellShape[],
  fixture: FixtureShape,
  limits: Limits,
  kind: CellKind = "memory",
): MemoryCheck {
  if (cells.length === 0) return { verdict: "ok", line: "", worst: null };
  const cellName = (c: CellShape) => `${NOUN[kind]} ${c.scriptBytes} B x ${c.clients} clients (${c.mode})`;
  const needs = cells.map((c) => cellNeed(c, fixture));
  const worst = needs.reduce((a, b) => (b.machineBytes > a.machineBytes ? b : a));
  const biggestFrame = needs.reduce((a, b) => (b.frameBytes > a.frameBytes ? b : a));
  const how = HOW[kind];
  if (biggestFrame.frameBytes > MAX_STRING_BYTES) {
    return {
      verdict: "refuse",
      worst: biggestFrame,
      line: `${cellName(biggestFrame.cell)} needs a catch-up frame of about ${gib(biggestFrame.frameBytes)} per client, more than a V8 string can hold (${gib(MAX_STRING_BYTES)}): the server would fail to encode it; ${how}`,
    };
  }
  const heapWorst = needs.reduce((a, b) => (b.serverHeapBytes > a.serverHeapBytes ? b : a));
  if (limits.heapLimitBytes !== null && heapWorst.serverHeapBytes > limits.heapLimitBytes) {
    return {
      verdict: "refuse",
      worst: heapWorst,
      line: `${cellName(heapWorst.cell)} needs about ${gib(heapWorst.serverHeapBytes)} of server heap (${heapWorst.cell.clients} clients x ${gib(heapWorst.frameBytes)} catch-up frame x ${SERVER_FACTOR}); the server's heap limit is ${gib(limits.heapLimitBytes)}, so it would crash out of memory; ${how}`,
    };
  }
  if (worst.machineBytes > limits.availableBytes) {
    return {
      verdict: "refuse",
      worst,
      line: `${cellName(worst.cell)} needs about ${gib(worst.machineBytes)} of memory (server and clients), this machine has ${gib(limits.availableBytes)} available; ${how}`,
    };
  }
  if (worst.machineBytes > WARN_SHARE * limits.availableBytes) {
    return {
      verdict: "warn",
      worst,
      line: `${cellName(worst.cell)} needs about ${gib(worst.machineBytes)} of the ${gib(limits.availableBytes)} this machine has available: other processes may push the server out of memory`,
    };
  }
  return { verdict: "ok", line: "", worst };
}

/** MemAvailable from /proc/meminfo (bytes), else os.freemem(). */
export function availableMemory(meminfo = "/proc/meminfo"): number {
  try {
    const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync(meminfo, "utf8"));
    if (m?.[1]) return Number(m[1]) * 1024;
  } catch {
    // not Linux: fall through
  }
  return freemem();
}

/**
 * This machine's limits. The heap limit is this process's own: a bundled target runs the same
 * node with the same defaults (a foreign target's is unknown, so only the machine is checked).
 */
export function machineLimits(bundledOnly: boolean): Limits {
  return {
    heapLimitBytes: bundledOnly ? v8.getHeapStatistics().heap_size_limit : null,
    availableBytes: availableMemory(),
  };
}
