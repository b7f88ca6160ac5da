// --attribute's pure parts: sites of a sampling heap profile (allocating frame + caller, bytes summed,
// lines 1-based), matching two profiles' sites, the fewest sites covering 80% of the candidate's
// extra heap, labels with the shared directory dropped, and the per-cell section's lines.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { attributionSections, diffSites, extraSites, siteLabel } from "../../scripts/report/attribution-section.js";
import type { AttributionRow, HeapSite } from "../../scripts/results/attribution-record.js";
import { heapSites, type SamplingHeapProfileNode } from "../../scripts/sampler/heap-sites.js";
import { memoryCellModel } from "../support/report-model.js";

const MiB = 1024 * 1024;
const node = (fn: string, url: string, line: number, selfSize: number, children: SamplingHeapProfileNode[] = []) => ({
  callFrame: { functionName: fn, url, lineNumber: line - 1 },
  selfSize,
  children,
});
const site = (fn: string, bytes: number, caller: string | null = null, url = "file:///srv/app/a.js"): HeapSite => ({
  frame: { functionName: fn, url, line: 1 },
  caller: caller ? { functionName: caller, url, line: 9 } : null,
  bytes,
});

describe("heapSites", () => {
  it("sums self bytes per allocating frame and caller, names a native frame by its caller", () => {
    const profile = {
      head: node("(root)", "", 0, 0, [
        node("encodeChunk", "file:///srv/app/enc.js", 42, 1 * MiB, [node("stringify", "", 0, 10 * MiB)]),
        node("other", "file:///srv/app/o.js", 3, 0, [
          node("encodeChunk", "file:///srv/app/enc.js", 42, 0, [node("stringify", "", 0, 5 * MiB)]),
        ]),
        node("flush", "file:///srv/app/enc.js", 7, 2 * MiB, [node("stringify", "", 0, 3 * MiB)]),
      ]),
    };
    const { sites, totalBytes } = heapSites(profile);
    expect(totalBytes).toBe(21 * MiB);
    expect(sites[0]).toEqual({
      frame: { functionName: "stringify", url: "", line: 0 },
      caller: { functionName: "encodeChunk", url: "file:///srv/app/enc.js", line: 42 },
      bytes: 15 * MiB,
    });
    expect(sites.find((s) => s.frame.functionName === "encodeChunk")?.caller).toBeNull();
    expect(sites.map((s) => s.bytes)).toEqual([15, 3, 2, 1].map((x) => x * MiB));
  });
});

describe("diffSites and extraSites", () => {
  it("matches sites by frame and caller and names the fewest covering 80% of the extra", () => {
    const b = [site("a", 10 * MiB), site("b", 5 * MiB, "x")];
    const c = [site("a", 12 * MiB), site("b", 45 * MiB, "x"), site("b", 9 * MiB, "y"), site("d", 1 * MiB)];
    const d = diffSites(b, c);
    expect(d).toHaveLength(4);
    const extra = 52 * MiB;
    const named = extraSites(d, extra);
    expect(named?.sites.map((s) => [s.site.frame.functionName, s.site.caller?.functionName])).toEqual([
      ["b", "x"],
      ["b", "y"],
    ]);
    expect(named?.covered).toBeCloseTo(49 / 52, 5);
    expect(extraSites(d, -MiB)).toBeNull();
  });
});

describe("siteLabel", () => {
  it("names function ← caller (file:line), a package from node_modules on, ours below the shared directory", () => {
    expect(siteLabel(site("encode", 1, "send", "file:///w/node_modules/@effect/rpc/x.js"), "/w/")).toBe(
      "encode ← send (node_modules/@effect/rpc/x.js:1)",
    );
    expect(siteLabel(site("toShell", 1, null, "file:///w/dist/srv/store.js"), "/w/dist/")).toBe(
      "toShell (…/srv/store.js:1)",
    );
    const native = { frame: { functionName: "stringify", url: "", line: 0 }, caller: site("enc", 1).frame };
    expect(siteLabel(native, "/srv/")).toBe("stringify ← enc (…/app/a.js:1)");
  });
});

describe("attributionSections", () => {
  it("puts baseline → candidate per site with the difference, the extra's sites and the overhead", () => {
    const row = (variant: string, kind: "peak" | "total", sites: HeapSite[], peak: number): AttributionRow => ({
      scriptBytes: 8192,
      clients: 4,
      mode: "memory",
      variant,
      kind,
      ok: true,
      peakHeapBytes: peak,
      peakRssBytes: null,
      sampledBytes: sites.reduce((t, s) => t + s.bytes, 0),
      sites,
      taken: kind === "peak" ? "peak" : "end",
      heapAtProfileBytes: peak,
      profileRequests: 3,
      profileFile: null,
      error: null,
    });
    const info = {
      intervalBytes: 32768,
      rows: [
        row("legacy", "peak", [site("a", 10 * MiB)], 400 * MiB),
        row("batched", "peak", [site("a", 10 * MiB), site("big", 100 * MiB, "encodeChunk")], 520 * MiB),
        row("legacy", "total", [site("a", 300 * MiB)], 400 * MiB),
      ],
    };
    const memory = [memoryCellModel({ medians: { peakHeapBytes: { baseline: 400 * MiB, candidate: 500 * MiB } } })];
    const [s] = attributionSections(info, memory, { baseline: "legacy", candidate: "batched" });
    expect(s?.peak?.rows[0]).toEqual(["big ← encodeChunk (…/app/a.js:1)", "0.0 (0%)", "100.0 (91%)", "+100.0"]);
    const text = s?.lines.join("\n") ?? "";
    expect(text).toMatch(/extra sampled heap at the peak, \+100\.0 MiB: \+100\.0 big ← encodeChunk/);
    expect(text).toMatch(
      /100% of it; against the measured peak heap medians' difference, \+100\.0 MiB, they account for 100%/,
    );
    expect(text).toMatch(/legacy 300\.0 MiB/);
    expect(text).toMatch(/legacy 400\.0 MiB against 400\.0 \(\+0\.0%\); batched 520\.0 MiB against 500\.0 \(\+4\.0%\)/);
    expect(text).toMatch(/total-profile trials legacy 400\.0 MiB against 400\.0 \(\+0\.0%\); batched: n\/a/);
  });
});

describe("--attribute's flags", () => {
  it("turn on the profiling trials with their interval, and need the memory matrix", () => {
    expect(resolveConfig({}).memory.attribute).toBeNull();
    expect(resolveConfig({ attribute: true }).memory.attribute).toEqual({ intervalBytes: 32768 });
    expect(resolveConfig({ attribute: true, "attribute-interval-bytes": 4096 }).memory.attribute).toEqual({
      intervalBytes: 4096,
    });
    expect(() => resolveConfig({ attribute: true, memory: false })).toThrow(/--attribute needs the memory matrix/);
  });

  it("refuse --attribute-interval-bytes without --attribute (it would change nothing, silently)", () => {
    expect(() => resolveConfig({ "attribute-interval-bytes": 4096 })).toThrow(
      /--attribute-interval-bytes goes with --attribute/,
    );
  });
});
