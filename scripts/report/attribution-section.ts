// --attribute in the report (pure): per memory cell, the allocation sites of the live sampled heap at
// the peak, baseline → candidate with the difference, the sites that account for the candidate's
// extra sampled heap, the largest sites of everything allocated over the window, and the profiling
// trials' own overhead (their peak heap against the measured trials' median). Function names and
// paths come from the target: data, rendered inert by the tables and mdText.

import type {
  AttributionInfo,
  AttributionKind,
  AttributionRow,
  HeapSite,
  SiteFrame,
} from "../results/attribution-record.js";
import { memoryCellName } from "../results/cell-names.js";
import { mib } from "../util/format.js";

const MIB = 1024 * 1024;

import type { MemoryCellModel } from "./model.js";

/** Sites shown per cell for the peak profile, and for the total allocated. */
const PEAK_ROWS = 8;
const TOTAL_ROWS = 3;
/** The sites named for the extra heap must cover this share of it. */
export const EXTRA_SHARE = 0.8;

const keyOf = (f: SiteFrame | null) => (f ? `${f.functionName}\u0000${f.url}\u0000${f.line}` : "");
const siteKey = (s: HeapSite) => `${keyOf(s.frame)}\u0001${keyOf(s.caller)}`;

/** A url without its file:// scheme: Node reports ES modules as file:// urls, CommonJS as paths. */
const pathOf = (url: string) => url.replace(/^file:\/\//, "");

/** Pure: the longest directory prefix shared by every url with a path, so rows can drop it. */
export function commonDir(urls: readonly string[]): string {
  const paths = urls.map(pathOf).filter((u) => u.startsWith("/"));
  if (paths.length === 0) return "";
  let prefix = paths[0] as string;
  for (const u of paths) while (!u.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf("/") + 1);
}

const parentDir = (dir: string) => dir.slice(0, dir.slice(0, -1).lastIndexOf("/") + 1);

function where(f: SiteFrame, dir: string): string {
  if (!f.url) return "";
  const p = pathOf(f.url);
  // A package's file from node_modules on; the target's own files below the directory they share.
  const pkg = p.lastIndexOf("/node_modules/");
  const path = pkg >= 0 ? p.slice(pkg + 1) : dir.length > 1 && p.startsWith(dir) ? `…/${p.slice(dir.length)}` : f.url;
  return `${path}:${f.line}`;
}

/** "encode ← send (…/dist/rpc.js:39)": the allocating function, its caller, where. */
export function siteLabel(s: Pick<HeapSite, "frame" | "caller">, dir: string): string {
  const at = where(s.frame, dir) || (s.caller ? where(s.caller, dir) : "");
  const name = s.caller ? `${s.frame.functionName} ← ${s.caller.functionName}` : s.frame.functionName;
  return at ? `${name} (${at})` : name;
}

export interface SiteDiff {
  site: Pick<HeapSite, "frame" | "caller">;
  baseline: number;
  candidate: number;
}

/** Pure: the sites of two profiles matched by function, file, line and caller; absent = 0 bytes. */
export function diffSites(baseline: readonly HeapSite[], candidate: readonly HeapSite[]): SiteDiff[] {
  const out = new Map<string, SiteDiff>();
  for (const s of baseline) out.set(siteKey(s), { site: s, baseline: s.bytes, candidate: 0 });
  for (const s of candidate) {
    const d = out.get(siteKey(s));
    if (d) d.candidate = s.bytes;
    else out.set(siteKey(s), { site: s, baseline: 0, candidate: s.bytes });
  }
  return [...out.values()];
}

/**
 * Pure: the fewest sites, largest increase first, whose increases add up to `share` of the
 * candidate's extra sampled bytes; null when the candidate has none extra. Sites past the stored top
 * ones are unknown to results.json, so coverage can fall short: covered says how much was reached.
 */
export function extraSites(
  diffs: readonly SiteDiff[],
  extraBytes: number,
  share = EXTRA_SHARE,
): { sites: SiteDiff[]; covered: number } | null {
  if (extraBytes <= 0) return null;
  const up = diffs
    .filter((d) => d.candidate > d.baseline)
    .sort((a, b) => b.candidate - b.baseline - (a.candidate - a.baseline));
  const sites: SiteDiff[] = [];
  let sum = 0;
  for (const d of up) {
    if (sum >= share * extraBytes) break;
    sites.push(d);
    sum += d.candidate - d.baseline;
  }
  return { sites, covered: sum / extraBytes };
}

function signedMib(bytes: number): string {
  return `${bytes < 0 ? "−" : "+"}${mib(Math.abs(bytes))}`;
}
const shareOf = (bytes: number, total: number | null) => (total ? ` (${((100 * bytes) / total).toFixed(0)}%)` : "");

export interface AttributionSection {
  cell: string;
  /** The peak table: site, baseline MiB (share), candidate MiB (share), difference. */
  peak: { header: string[]; rows: string[][] } | null;
  /** Lines under it: how the profiles were taken, the extra heap's sites, the total allocated, the overhead. */
  lines: string[];
}

type Names = { baseline: string; candidate: string };

function rowOf(rows: readonly AttributionRow[], cell: string, variant: string, kind: AttributionKind) {
  return rows.find((r) => memoryCellName(r) === cell && r.variant === variant && r.kind === kind && r.ok) ?? null;
}

/** The profiling trial's peak heap against the measured trials' median: its own overhead. */
function overheadText(r: AttributionRow | null, measuredMedian: number | null, name: string): string {
  if (!r || r.peakHeapBytes === null || measuredMedian === null) return `${name}: n/a`;
  const pct = (r.peakHeapBytes / measuredMedian - 1) * 100;
  return `${name} ${mib(r.peakHeapBytes)} MiB against ${mib(measuredMedian)} (${pct < 0 ? "−" : "+"}${Math.abs(pct).toFixed(1)}%)`;
}

/** The peak profiles' sites side by side, the largest first. */
function peakTable(
  diffs: readonly SiteDiff[],
  b: AttributionRow | null,
  c: AttributionRow | null,
  names: Names,
  dir: string,
): NonNullable<AttributionSection["peak"]> {
  const shown = [...diffs].sort((x, y) => Math.max(y.baseline, y.candidate) - Math.max(x.baseline, x.candidate));
  return {
    header: ["site (function ← caller, file:line)", `${names.baseline} MiB`, `${names.candidate} MiB`, "difference"],
    rows: shown
      .slice(0, PEAK_ROWS)
      .map((d) => [
        siteLabel(d.site, dir),
        `${mib(d.baseline)}${shareOf(d.baseline, b?.sampledBytes ?? null)}`,
        `${mib(d.candidate)}${shareOf(d.candidate, c?.sampledBytes ?? null)}`,
        signedMib(d.candidate - d.baseline),
      ]),
  };
}

/** When a live profile was taken, in words. */
function takenText(r: AttributionRow | null, n: string): string {
  return !r
    ? `${n}: no profile`
    : r.taken === "peak"
      ? `${n} at its peak tick (${mib(r.sampledBytes)} MiB sampled)`
      : r.taken === "closest"
        ? `${n} at ${mib(r.heapAtProfileBytes)} MiB heap, its highest profiled tick (peak ${mib(r.peakHeapBytes)}; ${mib(r.sampledBytes)} MiB sampled)`
        : `${n} after the clients closed (no earlier answer; ${mib(r.sampledBytes)} MiB sampled)`;
}

/** The sites that account for the candidate's extra sampled heap at the peak, or that there is none; null for one variant. */
function extraHeapLine(
  diffs: readonly SiteDiff[],
  b: AttributionRow | null,
  c: AttributionRow | null,
  m: MemoryCellModel | undefined,
  names: Names,
  dir: string,
): string | null {
  const extra = (c?.sampledBytes ?? 0) - (b?.sampledBytes ?? 0);
  // Below a MiB, or 5% of the larger profile, the two are the same within the sampling's grain.
  const grain = Math.max(MIB, 0.05 * Math.max(b?.sampledBytes ?? 0, c?.sampledBytes ?? 0));
  const named = b && c && extra > grain ? extraSites(diffs, extra) : null;
  const mb = m?.medians.peakHeapBytes.baseline ?? null;
  const mc = m?.medians.peakHeapBytes.candidate ?? null;
  const measured = mb !== null && mc !== null && names.baseline !== names.candidate ? mc - mb : null;
  if (named) {
    const sum = named.sites.reduce((t, d) => t + d.candidate - d.baseline, 0);
    const list = named.sites.map((d) => `${signedMib(d.candidate - d.baseline)} ${siteLabel(d.site, dir)}`);
    const short =
      named.covered < EXTRA_SHARE
        ? `, short of ${100 * EXTRA_SHARE}%: the rest is spread over sites past the ${b?.sites.length ?? 0} stored per profile`
        : "";
    const against =
      measured !== null && measured > 0
        ? `; against the measured peak heap medians' difference, ${signedMib(measured)} MiB, they account for ${((100 * sum) / measured).toFixed(0)}%`
        : measured !== null
          ? `; the measured peak heap medians differ by ${signedMib(measured)} MiB`
          : "";
    const covered = `${(100 * named.covered).toFixed(0)}% of it${short}${against}`;
    return `The candidate's extra sampled heap at the peak, ${signedMib(extra)} MiB: ${list.join("; ")} (${covered}).`;
  }
  if (b && c && names.baseline !== names.candidate) {
    return `The candidate's sampled heap at the peak is not higher beyond the sampling's grain (${signedMib(extra)} MiB).`;
  }
  return null;
}

/** The largest sites of everything allocated over the window, collected objects included. */
function totalLine(tb: AttributionRow | null, tc: AttributionRow | null, names: Names, dir: string): string {
  const top = (r: AttributionRow | null) =>
    r
      ? r.sites
          .slice(0, TOTAL_ROWS)
          .map((s) => `${mib(s.bytes)} ${siteLabel(s, dir)}`)
          .join("; ")
      : "n/a";
  return `Allocated over the window, collected objects included: ${names.baseline} ${mib(tb?.sampledBytes ?? null)} MiB (${top(tb)}); ${names.candidate} ${mib(tc?.sampledBytes ?? null)} MiB (${top(tc)}).`;
}

/** Pure: one section per memory cell that has profiles. */
export function attributionSections(
  info: AttributionInfo,
  memory: readonly MemoryCellModel[],
  names: Names,
): AttributionSection[] {
  const own = (u: string) => u !== "" && !u.includes("/node_modules/");
  // One directory level kept above the files ("…/server-under-test/store.js:109").
  const dir = parentDir(
    commonDir(info.rows.flatMap((r) => r.sites.flatMap((s) => [s.frame.url, s.caller?.url ?? ""]).filter(own))),
  );
  const cells = [...new Set(info.rows.map((r) => memoryCellName(r)))];
  return cells.map((cell) => {
    const b = rowOf(info.rows, cell, names.baseline, "peak");
    const c = rowOf(info.rows, cell, names.candidate, "peak");
    const cellModel = memory.find((x) => memoryCellName(x) === cell);
    const lines: string[] = [];
    let peak: AttributionSection["peak"] = null;
    if (b || c) {
      const diffs = diffSites(b?.sites ?? [], c?.sites ?? []);
      peak = peakTable(diffs, b, c, names, dir);
      lines.push(`Live sampled heap: ${takenText(b, names.baseline)}; ${takenText(c, names.candidate)}.`);
      const extra = extraHeapLine(diffs, b, c, cellModel, names, dir);
      if (extra !== null) lines.push(extra);
    }
    const tb = rowOf(info.rows, cell, names.baseline, "total");
    const tc = rowOf(info.rows, cell, names.candidate, "total");
    if (tb || tc) lines.push(totalLine(tb, tc, names, dir));
    const mb0 = cellModel?.medians.peakHeapBytes.baseline ?? null;
    const mc0 = cellModel?.medians.peakHeapBytes.candidate ?? null;
    const pair = (x: AttributionRow | null, y: AttributionRow | null) =>
      `${overheadText(x, mb0, names.baseline)}; ${overheadText(y, mc0, names.candidate)}`;
    lines.push(
      `Profiling overhead, the profiled trials' peak heap against the measured trials' median: live-profile trials ${pair(b, c)} (each profile request makes V8 collect garbage first); total-profile trials ${pair(tb, tc)}.`,
    );
    return { cell, peak, lines };
  });
}

/** How to read the section, said once. */
export function attributionNote(info: AttributionInfo): string {
  return `V8's sampling heap profiler (--attribute), one sample every ${info.intervalBytes.toLocaleString("en-US")} bytes allocated on average, on extra trials that are never measured: the figures above them come from the other trials. A profile holds only what was allocated after profiling started (not the server's resting heap) and only V8 heap objects: external memory (Buffers' contents) and native allocations are in no site. Sites are the allocating function and its caller, at their original source where the target's script has a source map beside it (the bundled server's does), else as the target reports them (the common directory shown as …); inlined functions appear as the function they were inlined into. MiB are sampled estimates (share of the profile's total). V8's inspector runs the profiler with forced GC: every live profile request collects garbage first, so the live profile names what was reachable at the peak (not the garbage a measured peak also holds), and its trial peaks lower. Raw profiles: profiles/*.heapprofile (Chrome DevTools' Memory panel, speedscope).`;
}
