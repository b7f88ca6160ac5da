// `npm run bench:calibration`: the harness's completion timer against an independent client. One
// bundled legacy server on the default fixture shape (1,000 projects, 1 KiB scripts, 1,000 events);
// the resume-many session (every event after the fixture's cursor) with a 100 ms ACK delay, run by
// the harness's client (the Node driver as latency trials run it, probe included) and by the minimal
// client below (its own framing over `ws`), against the same server instance, interleaved in rotated
// order. Each measures the subscribe Request sent -> the frame carrying the completion marker
// received. The medians must agree within 1%.
// Usage: node dist/scripts/selfbench/completion-calibration.js [--pairs N] [--warmup N] [--json FILE]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { uniformFixture } from "../../fixtures/generate.js";
import {
  DEFAULT_ACK_DELAY_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
  DEV_TOKEN,
  PROBE_TAG,
  SUBSCRIBE_TAG,
} from "../../scenarios/lib/protocol.js";
import { runClientsNode } from "../driver/clients.js";
import { median, quantile } from "../util/stats.js";
import { intFlag, UsageError } from "../util/usage.js";
import { startBundledServer } from "./client-target.js";

/**
 * The independent client: its own frames, no code of the harness. Subscribes, ACKs every chunk
 * after ackDelayMs, optionally sends the probe on the first chunk as the harness's client does, and
 * resolves the ms from the subscribe sent to the marker's frame received.
 */
export function independentSession(
  url: string,
  after: number,
  { ackDelayMs, probe }: { ackDelayMs: number; probe: boolean },
): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${DEV_TOKEN}` } });
    let sentAt = 0;
    let chunks = 0;
    const fail = (why: string) => {
      clearTimeout(timer);
      ws.terminate();
      reject(new Error(`independent client: ${why}`));
    };
    const timer = setTimeout(
      () => fail(`no marker within ${DEFAULT_SESSION_TIMEOUT_MS} ms`),
      DEFAULT_SESSION_TIMEOUT_MS,
    );
    ws.on("open", () => {
      const payload = { afterSequence: after, requestCompletionMarker: true };
      sentAt = performance.now();
      ws.send(JSON.stringify({ _tag: "Request", id: "1", tag: SUBSCRIBE_TAG, payload, headers: [] }));
    });
    ws.on("message", (data) => {
      const arrived = performance.now();
      const frame = JSON.parse(String(data)) as { _tag: string; requestId?: string; values?: { kind?: string }[] };
      if (frame._tag === "Exit" && frame.requestId === "2") return;
      if (frame._tag !== "Chunk" || frame.requestId !== "1" || !frame.values) return fail(`frame ${frame._tag}`);
      if (++chunks === 1 && probe)
        ws.send(JSON.stringify({ _tag: "Request", id: "2", tag: PROBE_TAG, payload: {}, headers: [] }));
      if (frame.values.some((v) => v.kind === "synchronized")) {
        clearTimeout(timer);
        ws.close();
        return resolve({ ms: arrived - sentAt, chunks });
      }
      setTimeout(() => ws.send('{"_tag":"Ack","requestId":"1"}'), ackDelayMs);
    });
    ws.on("error", (e) => fail(e.message));
  });
}

/** One session of the harness's client, as a latency trial runs it (probe on, ACK delay as given). */
async function harnessSession(url: string, after: number, ackDelayMs: number): Promise<Session> {
  const { rows } = await runClientsNode(1, {
    url,
    token: DEV_TOKEN,
    headers: {},
    subscribeTag: SUBSCRIBE_TAG,
    subscribePayload: { afterSequence: after, requestCompletionMarker: true },
    completion: { field: "kind", value: "synchronized" },
    ackDelayMs,
    holdMs: 0,
    probe: { tag: PROBE_TAG, payload: {} },
    timeoutMs: DEFAULT_SESSION_TIMEOUT_MS,
  });
  const row = rows[0];
  if (!row?.ok || row.completionMs === null) throw new Error(`harness client: ${row?.error ?? "no row"}`);
  return { ms: row.completionMs, chunks: row.chunks };
}

/** One session's completion time (ms) and the chunks it took through the marker. */
interface Session {
  ms: number;
  chunks: number;
}

const ARMS = ["harness", "independent", "independent+probe"] as const;
type Arm = (typeof ARMS)[number];

export interface CalibrationResult {
  rounds: number;
  ackDelayMs: number;
  medians: Record<Arm, number>;
  p10: Record<Arm, number>;
  p90: Record<Arm, number>;
  /** How many sessions took each number of chunks through the marker (the server groups its replay by 512 items or 50 ms). */
  chunks: Record<Arm, Record<string, number>>;
  /** Median of the per-round ratios harness / arm. */
  pairedRatio: Record<Exclude<Arm, "harness">, number>;
  load: number[];
}

/** warmup uncounted rounds, then `rounds` rounds of every arm, the order rotated each round. */
export async function calibrate(
  url: string,
  after: number,
  rounds: number,
  warmup: number,
): Promise<CalibrationResult> {
  const ackDelayMs = DEFAULT_ACK_DELAY_MS;
  const run = (arm: Arm) =>
    arm === "harness"
      ? harnessSession(url, after, ackDelayMs)
      : independentSession(url, after, { ackDelayMs, probe: arm === "independent+probe" });
  const ms: Record<Arm, number[]> = { harness: [], independent: [], "independent+probe": [] };
  const chunks: Record<Arm, Record<string, number>> = { harness: {}, independent: {}, "independent+probe": {} };
  for (let r = -warmup; r < rounds; r++) {
    for (let i = 0; i < ARMS.length; i++) {
      const arm = ARMS[(((r % ARMS.length) + ARMS.length + i) % ARMS.length) as 0 | 1 | 2];
      const x = await run(arm);
      if (r < 0) continue;
      ms[arm].push(x.ms);
      chunks[arm][x.chunks] = (chunks[arm][x.chunks] ?? 0) + 1;
    }
  }
  const per = (f: (xs: number[]) => number) =>
    Object.fromEntries(ARMS.map((a) => [a, f(ms[a])])) as Record<Arm, number>;
  const ratio = (arm: Arm) => median(ms.harness.map((h, i) => h / (ms[arm][i] as number)));
  return {
    rounds,
    ackDelayMs,
    medians: per(median),
    p10: per((xs) => quantile(xs, 0.1)),
    p90: per((xs) => quantile(xs, 0.9)),
    chunks,
    pairedRatio: { independent: ratio("independent"), "independent+probe": ratio("independent+probe") },
    load: loadavg(),
  };
}

function print(r: CalibrationResult): void {
  const f = (x: number) => x.toFixed(1);
  console.log(
    `| client | median ms | p10–p90 ms | harness ÷ it, median of ${r.rounds} paired ratios | chunks through the marker: sessions |`,
  );
  console.log("|---|---:|---:|---:|---|");
  for (const arm of ARMS) {
    const ratio = arm === "harness" ? "–" : r.pairedRatio[arm].toFixed(4);
    const chunks = Object.entries(r.chunks[arm])
      .map(([n, count]) => `${n}: ${count}`)
      .join(", ");
    console.log(`| ${arm} | ${f(r.medians[arm])} | ${f(r.p10[arm])}–${f(r.p90[arm])} | ${ratio} | ${chunks} |`);
  }
  const off = Math.abs(r.medians.harness / r.medians.independent - 1);
  console.log(
    `\nmedians, harness vs independent: ${(100 * (r.medians.harness / r.medians.independent - 1)).toFixed(2)}% (goal within 1%: ${off <= 0.01 ? "met" : "NOT met"}); load ${r.load.map((x) => x.toFixed(2)).join(" ")}`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { pairs: { type: "string" }, warmup: { type: "string" }, json: { type: "string" } },
  });
  const rounds = values.pairs === undefined ? 15 : intFlag("pairs", values.pairs, 1, 1000);
  const warmup = values.warmup === undefined ? 2 : intFlag("warmup", values.warmup, 0, 100);
  const dir = mkdtempSync(join(tmpdir(), "catchup-calibration-"));
  try {
    const db = join(dir, "p1000-s1024-e1000.sqlite");
    uniformFixture({ projects: 1000, scriptBytes: 1024, events: 1000, seed: 1, out: db });
    const server = await startBundledServer(db, ["--delivery", "legacy"]);
    try {
      console.log(
        `legacy server, resume-many after sequence ${server.fixture.cursorSequence} (1,000 projects, 1 KiB, 1,000 events), ACK delay ${DEFAULT_ACK_DELAY_MS} ms, ${warmup} warm-up and ${rounds} measured rounds, order rotated\n`,
      );
      const result = await calibrate(server.url, server.fixture.cursorSequence, rounds, warmup);
      print(result);
      if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench:calibration: ${(e as Error).message}`);
  process.exitCode = e instanceof UsageError ? 2 : 1;
});
