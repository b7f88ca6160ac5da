// --attribute: after the measured memory rounds, per memory cell and variant two extra, unmeasured
// trials on fresh servers, the same sessions as a measured trial, with V8's sampling heap profiler on
// through the sampler's inspector session: "peak" keeps the live profile taken at the heap lane's
// maximum, "total" everything allocated over the window (collected objects included). Their rows
// never join the measured ones; their top sites go to results.json, the raw profiles to
// profiles/<trial>.heapprofile (Chrome DevTools' Memory panel and speedscope open them).
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AttributionKind, AttributionRow } from "../../results/attribution-record.js";
import type { MemoryRow } from "../../results/schema.js";
import { type ProfileCapture, startHeapProfiling } from "../../sampler/heap-profiler.js";
import { type FrameResolver, heapSites } from "../../sampler/heap-sites.js";
import { sourceMapResolver } from "../../sampler/source-maps.js";
import { type MemoryCell, type MemoryTrial, memoryTrialId } from "../rounds/plan.js";
import { runMemory } from "./memory.js";

/** Sites kept per profile in results.json (the file has them all). */
const TOP_SITES = 25;
const PREFIX = "attribute-";
/** Trial numbers of the profiling trials name their kind (they share the measured trials' id scheme). */
const KIND_OF_TRIAL: Record<number, AttributionKind> = { 1: "peak", 2: "total" };

/** Pure: the profiling trials, per cell then kind then variant. */
export function attributionPlan(cells: readonly MemoryCell[], variants: readonly string[]): MemoryTrial[] {
  return cells.flatMap((c) =>
    [1, 2].flatMap((trial) => variants.map((variant) => ({ ...c, kind: "memory" as const, variant, trial }))),
  );
}

export type AttributionContext = Omit<
  Parameters<typeof runMemory>[0],
  "plan" | "onRow" | "profiling" | "samplesPrefix" | "more"
> & {
  intervalBytes: number;
  onAttribution: (row: AttributionRow) => void;
};

/** The raw profile, whole or not at all (temp file + rename; a full disk leaves no temp file). */
export function saveProfile(runDir: string, id: string, profile: unknown): string {
  const rel = `profiles/${id}.heapprofile`;
  const path = join(runDir, rel);
  mkdirSync(join(runDir, "profiles"), { recursive: true });
  try {
    writeFileSync(`${path}.tmp`, JSON.stringify(profile));
    renameSync(`${path}.tmp`, path);
  } catch (e) {
    rmSync(`${path}.tmp`, { force: true });
    throw e;
  }
  return rel;
}

/** Pure: the attribution row of a profiling trial from its memory row and what the profiler captured. */
export function attributionRow(
  t: MemoryTrial,
  row: MemoryRow,
  capture: ProfileCapture | null,
  profileFile: string | null,
  error: string | null,
  resolve?: FrameResolver,
): AttributionRow {
  const found = capture ? heapSites(capture.profile, resolve) : null;
  const why = error ?? (capture ? row.error : (row.error ?? "no profile"));
  return {
    scriptBytes: t.scriptBytes,
    clients: t.clients,
    mode: t.mode,
    variant: t.variant,
    kind: KIND_OF_TRIAL[t.trial] ?? "peak",
    ok: Boolean(capture) && row.ok && !error,
    peakHeapBytes: row.peakHeapBytes,
    peakRssBytes: row.peakRssBytes,
    sampledBytes: found?.totalBytes ?? null,
    sites: found?.sites.slice(0, TOP_SITES) ?? [],
    taken: capture?.taken ?? "end",
    heapAtProfileBytes: capture?.heapAtProfileBytes ?? null,
    profileRequests: capture?.requests ?? 0,
    profileFile,
    error: why || null,
  };
}

/** Runs the profiling trials of cells × variants; each row goes to onAttribution as it finishes. */
export async function runAttribution(ctx: AttributionContext, cells: readonly MemoryCell[], variants: string[]) {
  const captures = new Map<string, { capture: ProfileCapture | null; error: string | null }>();
  // Sites named by their original source where the target's scripts have source maps (the bundled
  // server does); the saved .heapprofile keeps the positions V8 reported.
  const sources = sourceMapResolver();
  const full: Parameters<typeof runMemory>[0] = {
    ...ctx,
    plan: attributionPlan(cells, variants),
    samplesPrefix: PREFIX,
    // A profiling trial that fails is reported in its row; it never stops the run.
    failFast: false,
    profiling: async (t, inspector) => {
      const id = memoryTrialId(t, PREFIX);
      const p = await startHeapProfiling(inspector, {
        kind: KIND_OF_TRIAL[t.trial] ?? "peak",
        intervalBytes: ctx.intervalBytes,
      });
      return {
        onHeap: (heapUsed) => p.onHeap(heapUsed),
        async finish() {
          try {
            captures.set(id, { capture: await p.finish(), error: null });
          } catch (e) {
            captures.set(id, { capture: null, error: `heap profile: ${(e as Error).message}` });
          }
        },
      };
    },
    onRow: (row) => {
      const t: MemoryTrial = { ...row, kind: "memory" };
      const id = memoryTrialId(t, PREFIX);
      const got = captures.get(id) ?? { capture: null, error: null };
      captures.delete(id);
      let file: string | null = null;
      let error = got.error;
      if (got.capture) {
        try {
          file = saveProfile(ctx.runDir, id, got.capture.profile);
        } catch (e) {
          error = `profile file: ${(e as Error).message}`;
        }
      }
      ctx.onAttribution(attributionRow(t, row, got.capture, file, error, sources));
    },
  };
  await runMemory(full);
}
