// A minimal Chrome DevTools Protocol client for a Node inspector, over `ws`. The harness samples heap
// from outside the target: Runtime.getHeapUsage answers even while the target's event loop is blocked
// (V8 handles inspector messages on an interrupt). The inspector can run code in the target, so this
// client refuses any address that is not loopback.
import { get } from "node:http";
import WebSocket from "ws";
import { listeningSockets } from "./procfs.js";

export interface HeapUsage {
  /** V8 heap bytes in use. */
  usedSize: number;
  /** V8 heap bytes reserved. */
  totalSize: number;
}

export interface InspectorClient {
  /** The ws://127.0.0.1:PORT/ID url this client is connected to. */
  readonly url: string;
  /** Sends one CDP command; rejects on a protocol error, on close, or after timeoutMs. */
  send<T = unknown>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  /** Runtime.getHeapUsage: bytes. */
  getHeapUsage(timeoutMs?: number): Promise<HeapUsage>;
  /** HeapProfiler.collectGarbage: a full GC in the target (waits until a busy loop yields). */
  collectGarbage(timeoutMs?: number): Promise<void>;
  /** Runtime.evaluate with returnByValue; rejects if the expression throws. */
  evaluate<T = unknown>(expression: string, timeoutMs?: number): Promise<T>;
  /** True once the socket closed (target gone, or close() called). */
  readonly isClosed: boolean;
  /** Resolves when the socket closes, for whatever reason, with the reason text. */
  readonly closed: Promise<string>;
  /** Closes the socket; resolves when closed (at most timeoutMs, then the socket is terminated). */
  close(timeoutMs?: number): Promise<void>;
}

export interface ConnectOptions {
  /** Timeout for the connection and the default for every call (ms). Default 5,000. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export class InspectorError extends Error {
  override readonly name: string = "InspectorError";
}

/** A port that answered, but not as an inspector: no point asking it again. */
class NotAnInspectorError extends InspectorError {
  override readonly name = "NotAnInspectorError";
}

/** Parses "Debugger listening on ws://HOST:PORT/ID" out of stderr text; null when absent. */
export function inspectorUrlFromStderr(text: string): string | null {
  const m = /Debugger listening on (ws:\/\/\S+)/.exec(text);
  return m?.[1] ?? null;
}

/** Throws unless url is a ws:// url on a loopback host. */
export function assertLoopbackWsUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InspectorError(
      `inspector url ${JSON.stringify(url)} is not a valid URL (expected ws://127.0.0.1:PORT/ID)`,
    );
  }
  if (parsed.protocol !== "ws:" || !LOOPBACK_HOSTS.has(parsed.hostname)) {
    throw new InspectorError(`inspector url ${JSON.stringify(url)} must be ws:// on 127.0.0.1, ::1 or localhost`);
  }
  return parsed;
}

/** The CDP session over one socket: numbered calls, their answers, and the close that fails what is pending. */
class CdpSession {
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  private nextId = 1;
  closedReason: string | null = null;
  exiting = false;
  readonly closed: Promise<string>;
  private resolveClosed: (reason: string) => void = () => {};

  constructor(
    private readonly ws: WebSocket,
    readonly defaultTimeout: number,
  ) {
    this.closed = new Promise<string>((r) => {
      this.resolveClosed = r;
    });
  }

  markClosed(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new InspectorError(`inspector closed (${reason})`));
      this.pending.delete(id);
    }
    this.resolveClosed(reason);
  }

  /** An answer settles its call; a target waiting for the debugger to disconnect is let go. */
  onMessage(data: WebSocket.RawData): void {
    let msg: { id?: number; result?: unknown; error?: { code?: number; message?: string } };
    try {
      msg = JSON.parse(String(data));
    } catch {
      return;
    }
    if (typeof msg.id !== "number") {
      // A target that exits while a session is attached waits for the debugger to disconnect
      // (even after process.exit); let it go at once.
      if ((msg as { method?: string }).method === "NodeRuntime.waitingForDisconnect") {
        this.exiting = true;
        this.ws.close();
      }
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error) p.reject(new InspectorError(`inspector error ${msg.error.code}: ${msg.error.message}`));
    else p.resolve(msg.result);
  }

  send<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = this.defaultTimeout): Promise<T> {
    if (this.closedReason !== null)
      return Promise.reject(new InspectorError(`inspector closed (${this.closedReason})`));
    const id = this.nextId++;
    return new Promise<T>((res, rej) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        rej(new InspectorError(`inspector ${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: res as (v: unknown) => void, reject: rej, timer });
      this.ws.send(JSON.stringify({ id, method, params }), (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.pending.delete(id);
        rej(new InspectorError(`inspector ${method} could not be sent: ${err.message}`));
      });
    });
  }
}

/** The client a caller holds: CDP calls through the session, and closing its socket. */
function inspectorClient(wsUrl: string, ws: WebSocket, session: CdpSession): InspectorClient {
  const send = <T>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<T> =>
    session.send<T>(method, params, timeoutMs);
  return {
    url: wsUrl,
    send,
    async getHeapUsage(timeoutMs) {
      const r = await send<{ usedSize: number; totalSize: number }>("Runtime.getHeapUsage", {}, timeoutMs);
      return { usedSize: r.usedSize, totalSize: r.totalSize };
    },
    async collectGarbage(timeoutMs) {
      await send("HeapProfiler.collectGarbage", {}, timeoutMs);
    },
    async evaluate<T>(expression: string, timeoutMs?: number) {
      const r = await send<{ result: { value?: unknown }; exceptionDetails?: { text?: string } }>(
        "Runtime.evaluate",
        { expression, returnByValue: true },
        timeoutMs,
      );
      if (r.exceptionDetails) throw new InspectorError(`evaluate threw: ${r.exceptionDetails.text ?? "exception"}`);
      return r.result.value as T;
    },
    get isClosed() {
      return session.closedReason !== null;
    },
    closed: session.closed,
    async close(timeoutMs = session.defaultTimeout) {
      if (session.closedReason !== null) return;
      ws.close();
      const timer = setTimeout(() => ws.terminate(), timeoutMs);
      await session.closed;
      clearTimeout(timer);
    },
  };
}

/** Connects to a Node inspector websocket. Rejects after timeoutMs or if the url is not loopback. */
export function connectInspector(wsUrl: string, options: ConnectOptions = {}): Promise<InspectorClient> {
  try {
    assertLoopbackWsUrl(wsUrl);
  } catch (e) {
    return Promise.reject(e);
  }
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false, handshakeTimeout: defaultTimeout });
    const session = new CdpSession(ws, defaultTimeout);
    const connectTimer = setTimeout(() => {
      ws.terminate();
      reject(new InspectorError(`inspector ${wsUrl} did not accept a connection within ${defaultTimeout} ms`));
    }, defaultTimeout);
    ws.on("message", (data) => session.onMessage(data));
    ws.on("error", (err) => {
      if (ws.readyState === WebSocket.CONNECTING) {
        clearTimeout(connectTimer);
        reject(new InspectorError(`cannot connect to inspector ${wsUrl}: ${err.message}`));
      }
      session.markClosed(err.message);
    });
    ws.on("close", (code) => session.markClosed(session.exiting ? "target is exiting" : `socket closed, code ${code}`));
    const client = inspectorClient(wsUrl, ws, session);
    ws.once("open", () => {
      clearTimeout(connectTimer);
      // Node-only; a target that does not know it answers with an error, which is fine.
      session.send("NodeRuntime.notifyWhenWaitingForDisconnect", { enabled: true }).then(
        () => resolve(client),
        () => resolve(client),
      );
    });
  });
}

/** One entry of an inspector's http://HOST:PORT/json/list. */
export interface InspectorTarget {
  id: string;
  type: string;
  title: string;
  url: string;
  webSocketDebuggerUrl: string;
}

/** GET http://127.0.0.1:PORT/json/list; rejects after timeoutMs or if the port is not an inspector. */
export function listInspectorTargets(port: number, options: { timeoutMs?: number } = {}): Promise<InspectorTarget[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path: "/json/list", timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
        if (body.length > 1_000_000) req.destroy(new Error("response too large"));
      });
      res.on("end", () => {
        try {
          const list = JSON.parse(body) as unknown;
          if (!Array.isArray(list)) throw new Error("not a JSON array");
          resolve(list.filter((t): t is InspectorTarget => typeof t?.webSocketDebuggerUrl === "string"));
        } catch (e) {
          reject(
            new NotAnInspectorError(`127.0.0.1:${port}/json/list is not an inspector list: ${(e as Error).message}`),
          );
        }
      });
      res.on("error", reject);
    });
    req.on("timeout", () =>
      req.destroy(new InspectorError(`127.0.0.1:${port}/json/list timed out after ${timeoutMs} ms`)),
    );
    req.on("error", (e) =>
      reject(e instanceof InspectorError ? e : new InspectorError(`127.0.0.1:${port}: ${e.message}`)),
    );
  });
}

export interface FindInspectorOptions {
  /** Listening ports of the pid that are not the inspector (the server's own port). */
  excludePorts?: readonly number[];
  /** Overall deadline (ms): the inspector may open a moment after the process starts. Default 10,000. */
  timeoutMs?: number;
  /** Pause between scans of the pid's sockets (ms). Default 25. */
  pollMs?: number;
}

/**
 * Finds, connects to and verifies the inspector of `pid` without reading its stderr — for wrapped
 * targets where NODE_OPTIONS=--inspect=127.0.0.1:0 gives every node in the chain (npm, npx, the
 * server) its own inspector. Scans pid's loopback LISTEN sockets (/proc/PID/fd ↔ /proc/PID/net/tcp*),
 * asks each non-excluded port for /json/list, connects, and keeps the one whose
 * `process.pid` equals pid. Rejects with a clear message after timeoutMs.
 */
export async function findInspector(pid: number, options: FindInspectorOptions = {}): Promise<InspectorClient> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 25;
  const exclude = new Set(options.excludePorts ?? []);
  const deadline = performance.now() + timeoutMs;
  const tried = new Set<number>();
  let lastProblem = "no loopback listening port besides the excluded ones";
  for (;;) {
    let sockets: ReturnType<typeof listeningSockets>;
    try {
      sockets = listeningSockets(pid);
    } catch (e) {
      throw new InspectorError(`cannot find the inspector of pid ${pid}: ${(e as Error).message}`);
    }
    for (const s of sockets) {
      if (exclude.has(s.port) || tried.has(s.port) || !s.loopback) continue;
      const left = Math.max(1, deadline - performance.now());
      // A port is crossed off only on a definite answer (not an inspector, or another pid's);
      // a timeout or refused connection under load is asked again on the next scan.
      try {
        const targets = await listInspectorTargets(s.port, { timeoutMs: Math.min(left, 2_000) });
        let definite = true;
        for (const t of targets) {
          let client: InspectorClient;
          try {
            client = await connectInspector(t.webSocketDebuggerUrl, { timeoutMs: Math.min(left, 2_000) });
          } catch (e) {
            definite = false;
            lastProblem = (e as Error).message;
            continue;
          }
          try {
            const remotePid = await client.evaluate<number>("process.pid", Math.min(left, 2_000));
            if (remotePid === pid) return client;
            lastProblem = `port ${s.port} is the inspector of pid ${remotePid}, not ${pid}`;
          } catch (e) {
            definite = false;
            lastProblem = (e as Error).message;
          }
          await client.close(1_000);
        }
        if (definite) tried.add(s.port);
      } catch (e) {
        if (e instanceof NotAnInspectorError) tried.add(s.port);
        lastProblem = (e as Error).message;
      }
    }
    if (performance.now() >= deadline) {
      throw new InspectorError(
        `no inspector found for pid ${pid} within ${timeoutMs} ms (${lastProblem}); start the target with --inspect=127.0.0.1:0 or NODE_OPTIONS=--inspect=127.0.0.1:0`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(1, deadline - performance.now()))));
  }
}
