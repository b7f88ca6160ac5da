// bench:client part 1: what the shared client costs per chunk. The same legacy resume (many
// chunks, ACK delay 0) runs through the shared client (Node driver) and through a raw `ws` loop
// that only parses each frame, checks for the marker and ACKs, against one server, interleaved
// A B B A ..., so the ratio is measured side by side in one run.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import {
  COMPLETION_MARKER,
  SUBSCRIBE_TAG,
  SUBSCRIBE_TEMPLATE,
  DEFAULT_SESSION_TIMEOUT_MS as TIMEOUT_MS,
} from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import { runSessions } from "../driver/node.js";
import { median, quantile } from "../util/stats.js";

export interface OverheadResult {
  pairs: number;
  chunksPerSession: number;
  clientPerChunkMs: { median: number; p90: number };
  rawPerChunkMs: { median: number; p90: number };
  /** Median of the paired ratios client/raw (per-chunk time). */
  ratioMedian: number;
  ratioP10: number;
  ratioP90: number;
  /** CPU time of this (client) process per chunk: what the client itself costs, less sensitive to load. */
  clientCpuPerChunkMs: number;
  rawCpuPerChunkMs: number;
  cpuRatioMedian: number;
}

/** Runs one session and adds this process's CPU time (user + system, ms) to its figures. */
async function withCpu(run: () => Promise<{ ms: number; chunks: number }>) {
  const before = process.cpuUsage();
  const r = await run();
  const cpu = process.cpuUsage(before);
  return { ...r, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** The raw loop: subscribe, ACK each chunk at once, stop at the marker. Returns ms and chunks. */
export function rawSession(url: string, token: string, payload: unknown): Promise<{ ms: number; chunks: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
    let t0 = 0;
    let chunks = 0;
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`raw session timed out after ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    ws.on("open", () => {
      ws.send(JSON.stringify({ _tag: "Request", id: "1", tag: SUBSCRIBE_TAG, payload, headers: [] }));
      t0 = performance.now();
    });
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { _tag: string; values?: Array<{ kind?: string }> };
      if (msg._tag !== "Chunk" || !msg.values) {
        clearTimeout(timer);
        ws.terminate();
        reject(new Error(`raw session: unexpected frame ${String(data).slice(0, 200)}`));
        return;
      }
      chunks++;
      if (msg.values.some((v) => v[COMPLETION_MARKER.field as "kind"] === COMPLETION_MARKER.value)) {
        const ms = performance.now() - t0;
        clearTimeout(timer);
        ws.close();
        resolve({ ms, chunks });
      } else {
        ws.send('{"_tag":"Ack","requestId":"1"}');
      }
    });
    ws.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

async function clientSession(url: string, token: string, payload: unknown): Promise<{ ms: number; chunks: number }> {
  const { rows } = await runSessions({
    clients: 1,
    url,
    token,
    subscribePayload: payload,
    ackDelayMs: 0,
    probe: null,
    timeoutMs: TIMEOUT_MS,
  });
  const row = rows[0];
  if (!row?.ok || row.completionMs === null) throw new Error(`client session failed: ${row?.error}`);
  return { ms: row.completionMs, chunks: row.chunks };
}

/** Runs `pairs` interleaved pairs (after `warmup` of each) and returns per-chunk times and their ratio. */
export async function measureOverhead(
  url: string,
  token: string,
  after: number,
  pairs: number,
  warmup = 5,
): Promise<OverheadResult> {
  const payload = buildSubscribePayload(SUBSCRIBE_TEMPLATE, after);
  for (let i = 0; i < warmup; i++) {
    await rawSession(url, token, payload);
    await clientSession(url, token, payload);
  }
  const client: number[] = [];
  const raw: number[] = [];
  const ratios: number[] = [];
  const clientCpu: number[] = [];
  const rawCpu: number[] = [];
  const cpuRatios: number[] = [];
  const clientRun = () => withCpu(() => clientSession(url, token, payload));
  const rawRun = () => withCpu(() => rawSession(url, token, payload));
  let chunks = 0;
  for (let i = 0; i < pairs; i++) {
    // Alternate which goes first so drift (GC, caches, thermal) falls on both.
    const first = i % 2 === 0 ? "client" : "raw";
    const a = first === "client" ? await clientRun() : await rawRun();
    const b = first === "client" ? await rawRun() : await clientRun();
    const [c, r] = first === "client" ? [a, b] : [b, a];
    if (c.chunks !== r.chunks) throw new Error(`client saw ${c.chunks} chunks, raw loop ${r.chunks}`);
    chunks = c.chunks;
    client.push(c.ms / c.chunks);
    raw.push(r.ms / r.chunks);
    ratios.push(c.ms / c.chunks / (r.ms / r.chunks));
    clientCpu.push(c.cpuMs / c.chunks);
    rawCpu.push(r.cpuMs / r.chunks);
    cpuRatios.push(c.cpuMs / Math.max(r.cpuMs, 0.001));
  }
  return {
    pairs,
    chunksPerSession: chunks,
    clientPerChunkMs: { median: median(client), p90: quantile(client, 0.9) },
    rawPerChunkMs: { median: median(raw), p90: quantile(raw, 0.9) },
    ratioMedian: median(ratios),
    ratioP10: quantile(ratios, 0.1),
    ratioP90: quantile(ratios, 0.9),
    clientCpuPerChunkMs: median(clientCpu),
    rawCpuPerChunkMs: median(rawCpu),
    cpuRatioMedian: median(cpuRatios),
  };
}
