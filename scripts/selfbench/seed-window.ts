// `npm run bench:seed`: the seed's rate with one write at a time against a window of writes in
// flight, side by side in one run. The test notes server (test/seed/notes-server.mjs, Effect RPC, an
// append-only log) is seeded from the default memory fixture's shape (1,000 projects of 1 KiB, 1,000
// updates) through its test binding, at each window in turn, the order rotated every round. Prints
// per window the median over rounds of events/s (the writes alone) and of the seed time split into
// the server's start and stop, its answering and the harness, and the median of the per-round ratios
// to one at a time; then one JSON line.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { uniformFixture } from "../../fixtures/generate.js";
import { seedOnce } from "../bench/seed/seed-once.js";
import { resolveConfig } from "../options/resolve-config.js";
import type { SeedRecord } from "../results/schema.js";
import { median } from "../util/stats.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SERVER = join(ROOT, "test", "seed", "notes-server.mjs");
const BINDING = join(ROOT, "test", "seed", "notes-binding.mjs");
const WINDOWS = (process.env.SEED_BENCH_WINDOWS ?? "1,16,64,256").split(",").map(Number);
const ROUNDS = Number(process.env.SEED_BENCH_ROUNDS ?? 3);

/** One seed of notes-server with `window` writes in flight; its record. */
async function seedAt(dir: string, fixture: string, window: number): Promise<SeedRecord> {
  const config = resolveConfig({
    target: [`notes=node ${SERVER} serve --state {state} --port {port}`],
    binding: BINDING,
    "seed-window": String(window),
    ...{ "subscribe-tag": "Notes.Watch", "subscribe-payload": '{"since":{after}}', completion: "type=ready" },
    ...{ "probe-tag": "Notes.Ping", "url-path": "/rpc" },
  });
  const { record, stateDir } = await seedOnce(config, fixture, { dir, root: ROOT });
  rmSync(stateDir, { recursive: true, force: true });
  return record;
}

const s = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(2);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-seed-"));
  const fixture = join(dir, "p1000-s1024-e1000.sqlite");
  uniformFixture({ projects: 1000, scriptBytes: 1024, events: 1000, seed: 1, out: fixture });
  const loadBefore = loadavg()[0] as number;
  const byWindow = new Map<number, SeedRecord[]>(WINDOWS.map((w) => [w, []]));
  const ratios = new Map<number, number[]>(WINDOWS.map((w) => [w, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = WINDOWS.map((_, i) => WINDOWS[(i + round) % WINDOWS.length] as number);
      const rates = new Map<number, number>();
      for (const w of order) {
        const rec = await seedAt(dir, fixture, w);
        byWindow.get(w)?.push(rec);
        rates.set(w, rec.eventsPerSecond);
      }
      for (const w of WINDOWS) ratios.get(w)?.push((rates.get(w) as number) / (rates.get(1) as number));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = loadavg()[0] as number;
  const rows = WINDOWS.map((w) => {
    const recs = byWindow.get(w) ?? [];
    const med = (f: (r: SeedRecord) => number) => median(recs.map(f));
    return {
      window: w,
      eventsPerSecond: Math.round(med((r) => r.eventsPerSecond)),
      ratioToOne: Number(median(ratios.get(w) ?? []).toFixed(2)),
      seedMs: Math.round(med((r) => r.seedMs)),
      startStopMs: Math.round(med((r) => r.startStopMs ?? 0)),
      answeringMs: Math.round(med((r) => r.answeringMs ?? 0)),
      harnessMs: Math.round(med((r) => r.harnessMs ?? 0)),
    };
  });
  const events = byWindow.get(1)?.[0]?.events ?? 0;
  console.log(
    `bench:seed: notes-server, ${events} events (p1000-s1024-e1000), ${ROUNDS} rounds, medians over rounds; load ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}`,
  );
  console.log("window  events/s  × one-at-a-time  seed (s)  server start+stop (s)  server answering (s)  harness (s)");
  for (const r of rows) {
    console.log(
      `${String(r.window).padStart(6)}  ${String(r.eventsPerSecond).padStart(8)}  ${r.ratioToOne.toFixed(2).padStart(15)}  ${s(r.seedMs).padStart(8)}  ${s(r.startStopMs).padStart(21)}  ${s(r.answeringMs).padStart(20)}  ${s(r.harnessMs).padStart(11)}`,
    );
  }
  console.log(JSON.stringify({ bench: "seed", events, rounds: ROUNDS, loadBefore, loadAfter, rows }));
}

main().catch((e: unknown) => {
  console.error(`bench:seed: ${(e as Error).message}`);
  process.exit(1);
});
