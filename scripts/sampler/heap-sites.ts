// Pure: allocation sites of a V8 sampling heap profile (HeapProfiler.getSamplingProfile's `profile`).
// A site is the frame that allocated plus its caller, so a native frame ("JSON.stringify", no url) is
// named with the JavaScript function that called it. Bytes are the nodes' selfSize summed per site.
import type { HeapSite, SiteFrame } from "../results/attribution-record.js";

export interface CdpCallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
  scriptId?: string;
}

export interface SamplingHeapProfileNode {
  callFrame: CdpCallFrame;
  selfSize: number;
  id?: number;
  children: SamplingHeapProfileNode[];
}

export interface SamplingHeapProfile {
  head: SamplingHeapProfileNode;
  samples?: { size: number; nodeId: number; ordinal: number }[];
}

/**
 * Maps a frame's script position (1-based line, 0-based column, as V8 reports columns) to its
 * original source (source-maps.ts), or null to keep it.
 */
export type FrameResolver = (p: { url: string; line: number; column: number }) => { url: string; line: number } | null;

function frameOf(c: CdpCallFrame, resolve?: FrameResolver): SiteFrame {
  const reported = { url: c.url, line: c.lineNumber + 1 };
  const mapped = resolve && c.url ? resolve({ ...reported, column: c.columnNumber ?? 0 }) : null;
  return { functionName: c.functionName || "(anonymous)", ...(mapped ?? reported) };
}

/** The key of a frame: function, url and line (a site is the pair allocating frame, caller). */
export function frameKey(f: SiteFrame | null): string {
  return f ? `${f.functionName}\u0000${f.url}\u0000${f.line}` : "";
}

export function siteKey(s: Pick<HeapSite, "frame" | "caller">): string {
  return `${frameKey(s.frame)}\u0001${frameKey(s.caller)}`;
}

/** Every site of the profile with its bytes, largest first; and the profile's total sampled bytes. */
export function heapSites(
  profile: SamplingHeapProfile,
  resolve?: FrameResolver,
): { sites: HeapSite[]; totalBytes: number } {
  const byKey = new Map<string, HeapSite>();
  let total = 0;
  // Iterative walk: a deep recursion in the target gives a deep tree.
  const stack: [SamplingHeapProfileNode, SiteFrame | null][] = [[profile.head, null]];
  while (stack.length > 0) {
    const [node, parent] = stack.pop() as [SamplingHeapProfileNode, SiteFrame | null];
    const frame = frameOf(node.callFrame, resolve);
    if (node.selfSize > 0) {
      total += node.selfSize;
      const site = { frame, caller: parent, bytes: 0 };
      const key = siteKey(site);
      const known = byKey.get(key) ?? site;
      known.bytes += node.selfSize;
      byKey.set(key, known);
    }
    // "(root)" is no caller worth naming.
    const asParent = node === profile.head ? null : frame;
    for (const child of node.children ?? []) stack.push([child, asParent]);
  }
  const sites = [...byKey.values()].sort((a, b) => b.bytes - a.bytes || siteKey(a).localeCompare(siteKey(b)));
  return { sites, totalBytes: total };
}
