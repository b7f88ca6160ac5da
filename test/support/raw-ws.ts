// Test support: a raw WebSocket connection speaking Effect RPC frames by hand (JSON text frames),
// so tests see exactly what the server writes. Not a protocol client: tests send frames themselves.
import WebSocket from "ws";

export type Frame = Record<string, unknown> & { _tag: string };

export interface OpenOptions {
  /** Sent as `Authorization: Bearer T`. */
  bearer?: string;
  /** Sent as `?token=T`. */
  queryToken?: string;
  timeoutMs?: number;
}

/** The HTTP status of a refused upgrade. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number) {
    super(`upgrade refused with HTTP ${status}`);
  }
}

export class RawConnection {
  readonly frames: Frame[] = [];
  private waiters: { test: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      const frame = JSON.parse(isBinary ? String(data) : data.toString()) as Frame;
      this.frames.push(frame);
      this.waiters = this.waiters.filter((w) => {
        if (!w.test(frame)) return true;
        w.resolve(frame);
        return false;
      });
    });
    this.closed = new Promise((resolve) =>
      ws.once("close", (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  static open(url: string, options: OpenOptions = {}): Promise<RawConnection> {
    const u = new URL(url);
    if (options.queryToken !== undefined) u.searchParams.set("token", options.queryToken);
    const headers: Record<string, string> = {};
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
    const ws = new WebSocket(u, { headers });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`no connection to ${url} within ${options.timeoutMs ?? 10_000} ms`));
      }, options.timeoutMs ?? 10_000);
      ws.once("open", () => {
        clearTimeout(timer);
        resolve(new RawConnection(ws));
      });
      ws.once("unexpected-response", (_req, res) => {
        clearTimeout(timer);
        ws.terminate();
        reject(new UpgradeRefused(res.statusCode ?? 0));
      });
      ws.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  request(id: string, tag: string, payload: unknown): void {
    this.send({ _tag: "Request", id, tag, payload, headers: [] });
  }

  ack(requestId: string): void {
    this.send({ _tag: "Ack", requestId });
  }

  /** The first frame (already received or future) matching `test`; rejects after timeoutMs. */
  next(test: (f: Frame) => boolean, timeoutMs = 10_000, from = 0): Promise<Frame> {
    const seen = this.frames.slice(from).find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames).slice(0, 600)}`));
      }, timeoutMs);
      const done = (f: Frame) => {
        clearTimeout(timer);
        resolve(f);
      };
      this.waiters.push({ test, resolve: done });
    });
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

export const isChunkFor = (id: string) => (f: Frame) => f._tag === "Chunk" && f.requestId === id;
export const isExitFor = (id: string) => (f: Frame) => f._tag === "Exit" && f.requestId === id;
export const values = (f: Frame) => f.values as Record<string, unknown>[];
export const hasMarker = (f: Frame) => values(f).some((v) => v.kind === "synchronized");

export interface ThroughCompletion {
  chunks: Frame[];
  items: Record<string, unknown>[];
}

/**
 * Subscribes and ACKs each chunk after ackDelayMs (one Ack per Chunk), until the chunk carrying the
 * completion marker; that last chunk is not ACKed (the caller decides).
 */
export async function subscribeThroughCompletion(
  conn: RawConnection,
  id: string,
  payload: Record<string, unknown>,
  ackDelayMs = 0,
  timeoutMs = 20_000,
  tag = "orchestration.subscribeShell",
): Promise<ThroughCompletion> {
  const chunks: Frame[] = [];
  let cursor = conn.frames.length;
  conn.request(id, tag, { requestCompletionMarker: true, ...payload });
  for (;;) {
    const frame = await conn.next((f) => isChunkFor(id)(f) || isExitFor(id)(f), timeoutMs, cursor);
    cursor = conn.frames.indexOf(frame) + 1;
    if (frame._tag === "Exit") throw new Error(`stream ended before completion: ${JSON.stringify(frame)}`);
    chunks.push(frame);
    if (hasMarker(frame)) break;
    // The simulated client's ACK delay (what the bench measures), not a synchronisation sleep.
    if (ackDelayMs > 0) await new Promise((r) => setTimeout(r, ackDelayMs));
    conn.ack(id);
  }
  return { chunks, items: chunks.flatMap(values) };
}

/** The upgrade's HTTP status: 101 when the socket opened (it is closed again), else the refusal's. */
export async function upgradeStatus(url: string, options: OpenOptions): Promise<number> {
  try {
    const conn = await RawConnection.open(url, options);
    await conn.close();
    return 101;
  } catch (e) {
    if (e instanceof UpgradeRefused) return e.status;
    throw e;
  }
}
