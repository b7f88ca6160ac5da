// One RPC connection for seeding: unary calls a binding makes, and the snapshot subscription the
// harness reads back to check the seed. Over the shared framing (scenarios/lib), either wire dialect.
import WebSocket from "ws";
import type { RpcClient } from "../../bindings/binding.js";
import { decodeFrame, encodeAck, encodeRequest, normaliseId } from "../../scenarios/lib/framing.js";
import { authenticate, isCompletionMarker } from "../../scenarios/lib/session.js";
import type { CompletionRule } from "../driver/session-spec.js";
import { TimeoutError, withTimeout } from "../util/timeout.js";

export interface SeedConnection extends RpcClient {
  /** Subscribes and returns every chunk's values up to and including the completion marker (each chunk ACKed). */
  snapshot(tag: string, payload: unknown, completion: CompletionRule): Promise<unknown[]>;
  /** Time with at least one request awaiting the server's reply, ms: the server's share of the seed. */
  busyMs(): number;
  close(): void;
}

interface Pending {
  tag: string;
  onChunk(values: unknown[]): void;
  onExit(ok: boolean, value: unknown, reason: string): void;
}

/** Opens the connection (rejects naming the URL when the upgrade fails); every call has `timeoutMs`. */
export async function openSeedConnection(o: {
  url: string;
  token: string;
  headers: Record<string, string>;
  timeoutMs: number;
}): Promise<SeedConnection> {
  const auth = authenticate(o.url, o.token, "header", o.headers);
  const socket = new WebSocket(auth.url, undefined, auth.params);
  const pending = new Map<string, Pending>();
  let broken: string | null = null;
  const breakAll = (why: string) => {
    broken ??= why;
    for (const p of pending.values()) p.onExit(false, null, why);
    pending.clear();
  };
  socket.on("message", (data) => {
    const frame = decodeFrame(data.toString());
    if (frame.type === "chunk") pending.get(normaliseId(frame.requestId))?.onChunk(frame.values);
    else if (frame.type === "exit") {
      const id = normaliseId(frame.requestId);
      const p = pending.get(id);
      pending.delete(id);
      if (frame.success) p?.onExit(true, frame.value, "");
      else p?.onExit(false, null, frame.reason);
    } else if (frame.type === "defect") breakAll(`server defect: ${frame.reason}`);
    else if (frame.type === "bad") breakAll(`bad frame: ${frame.reason}`);
  });
  socket.on("close", (code) => breakAll(`connection closed (code ${code})`));
  socket.on("error", (e) => breakAll(`websocket error: ${e.message}`));
  try {
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        socket.once("open", () => resolve());
        socket.once("error", reject);
        socket.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
      }),
      o.timeoutMs,
      `connecting to ${o.url}`,
    );
  } catch (e) {
    socket.terminate();
    throw new Error(`could not connect to ${o.url}: ${(e as Error).message}`);
  }

  let nextId = 0;
  // Requests awaiting a reply, and since when at least one has: the time the server was answering.
  let awaiting = 0;
  let busySince = 0;
  let busy = 0;
  const awaited = <T>(p: Promise<T>): Promise<T> => {
    if (awaiting++ === 0) busySince = performance.now();
    return p.finally(() => {
      if (--awaiting === 0) busy += performance.now() - busySince;
    });
  };
  const request = <T>(tag: string, payload: unknown, collect: (values: unknown[], done: (v: T) => void) => void) => {
    if (broken) return Promise.reject(new Error(`${tag}: ${broken}`));
    const id = String(++nextId);
    const result = new Promise<T>((resolve, reject) => {
      pending.set(id, {
        tag,
        onChunk: (values) => {
          socket.send(encodeAck(id));
          collect(values, (v) => {
            pending.delete(id);
            resolve(v);
          });
        },
        onExit: (ok, value, reason) => (ok ? resolve(value as T) : reject(new Error(`${tag} failed: ${reason}`))),
      });
      socket.send(encodeRequest(id, tag, payload));
    });
    return awaited(withTimeout(result, o.timeoutMs, `${tag}`)).catch((e: unknown) => {
      pending.delete(id);
      throw e instanceof TimeoutError ? new Error(`${tag}: no reply within ${o.timeoutMs} ms`) : e;
    });
  };

  return {
    call: (tag, payload) => request<unknown>(tag, payload, () => undefined),
    snapshot: (tag, payload, completion) => {
      const items: unknown[] = [];
      // With the "exit" rule the stream ends by itself and its Exit resolves; keep what the chunks brought.
      return request<unknown>(tag, payload, (values, done) => {
        items.push(...values);
        if (completion !== "exit" && values.some((v) => isCompletionMarker(v, completion))) done(undefined);
      }).then(() => items);
    },
    busyMs: () => busy + (awaiting > 0 ? performance.now() - busySince : 0),
    close: () => socket.close(1000),
  };
}
