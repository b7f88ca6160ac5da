// One fuzz connection: a `ws` client that executes FuzzActions in order and classifies what the
// server answered to each. After every action it sends a sentinel request (server.getConfig with an
// id from a range the fuzzer never uses) and waits for its Exit, so the answers to one action are not
// confused with the next one's, and a server that stops answering is noticed. (A Ping would not do:
// Pongs carry no id, and a late Pong would be taken for the current action's.)
import WebSocket from "ws";
import { PROBE_TAG } from "../../scenarios/lib/protocol.js";
import { type FrameFuzzer, type FuzzAction, type FuzzStep, frameBytes } from "./frames.js";

/** What one action got back, most significant first. */
export type Outcome =
  | `closed-${number}`
  | "terminated"
  | "defect"
  | "failed-exit"
  | "exit"
  | "chunk"
  | "ignored"
  | "no-answer";

export interface ActionResult {
  outcome: Outcome;
  framesSent: number;
  bytesSent: number;
}

export interface ConnectionOptions {
  url: string;
  token: string;
  /** Bound on each wait inside an action (await-exit, await-chunk). */
  stepTimeoutMs?: number;
  /**
   * Bound on the sentinel's answer, after which the action counts as "no-answer". Longer than a
   * step: it is the liveness check, and a loaded CI machine can delay a close or an Exit by seconds.
   */
  answerTimeoutMs?: number;
}

interface Seen {
  defect: boolean;
  failedExit: boolean;
  exit: boolean;
  chunk: boolean;
}

/** Sentinel ids start here; fuzz actions' fresh ids count up from 1 and never get near. */
export const SENTINEL_ID_BASE = 9_000_000_000_000;

/** An open fuzz socket. `closed` is set when it closes, whoever closed it. */
export class FuzzConnection {
  private readonly ws: WebSocket;
  private seen: Seen = { defect: false, failedExit: false, exit: false, chunk: false };
  /** Request ids the current action sent: only their Chunks and Exits count toward its outcome. */
  private actionIds = new Set<string>();
  private readonly exits = new Set<string>();
  private readonly chunks = new Set<string>();
  private waiters: (() => void)[] = [];
  private sentinels = 0;
  closeCode: number | null = null;
  private readonly stepTimeoutMs: number;
  private readonly answerTimeoutMs: number;

  private constructor(ws: WebSocket, stepTimeoutMs: number, answerTimeoutMs: number) {
    this.ws = ws;
    this.stepTimeoutMs = stepTimeoutMs;
    this.answerTimeoutMs = answerTimeoutMs;
    ws.on("message", (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on("close", (code) => {
      this.closeCode = code;
      this.wake();
    });
    // Errors (e.g. a refused frame) are followed by close; the outcome comes from the close code.
    ws.on("error", () => {});
  }

  /** Opens a socket with the token in the Authorization header; rejects after timeoutMs. */
  static open(options: ConnectionOptions, timeoutMs = 5_000): Promise<FuzzConnection> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(options.url, {
        headers: { authorization: `Bearer ${options.token}` },
        perMessageDeflate: false,
        handshakeTimeout: timeoutMs,
        // Replies to deep or huge frames can be big; never let the client be the one that refuses.
        maxPayload: 256 * 1024 * 1024,
      });
      ws.once("open", () =>
        resolve(new FuzzConnection(ws, options.stepTimeoutMs ?? 2_000, options.answerTimeoutMs ?? 10_000)),
      );
      ws.once("error", (e) => reject(new Error(`fuzz connection to ${options.url} failed: ${e.message}`)));
      ws.once("unexpected-response", (_req, res) => {
        reject(new Error(`fuzz connection to ${options.url} refused: HTTP ${res.statusCode}`));
        ws.terminate();
      });
    });
  }

  get isClosed(): boolean {
    return this.closeCode !== null;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    let msg: { _tag?: unknown; requestId?: unknown; exit?: { _tag?: unknown } };
    try {
      msg = JSON.parse(isBinary ? data.toString("utf8") : data.toString("utf8"));
    } catch {
      msg = {};
    }
    const requestId = typeof msg.requestId === "string" ? msg.requestId : String(msg.requestId);
    switch (msg._tag) {
      case "Defect":
        this.seen.defect = true;
        break;
      case "Exit":
        this.exits.add(requestId);
        if (!this.actionIds.has(requestId)) break;
        if (msg.exit?._tag === "Success") this.seen.exit = true;
        else this.seen.failedExit = true;
        break;
      case "Chunk":
        this.chunks.add(requestId);
        if (this.actionIds.has(requestId)) this.seen.chunk = true;
        break;
    }
    this.wake();
  }

  /**
   * Resolves true when cond() holds, false on close or after timeoutMs. A timer that fires after the
   * process stalled runs before the socket reads that queued up meanwhile, so on timeout the verdict
   * waits one setImmediate (after the poll phase) and looks again.
   */
  private waitFor(cond: () => boolean, timeoutMs = this.stepTimeoutMs): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if (cond()) {
          clearTimeout(timer);
          resolve(true);
        } else if (this.isClosed) {
          clearTimeout(timer);
          resolve(false);
        } else this.waiters.push(check);
      };
      const timer = setTimeout(() => {
        setImmediate(() => {
          this.waiters = this.waiters.filter((w) => w !== check);
          resolve(cond());
        });
      }, timeoutMs);
      check();
    });
  }

  private send(step: Extract<FuzzStep, { op: "send" }>): Promise<void> {
    return new Promise((resolve) => {
      if (this.isClosed || this.ws.readyState !== WebSocket.OPEN) return resolve();
      const data = step.frame.data;
      this.ws.send(typeof data === "string" ? data : Buffer.from(data), { binary: step.frame.binary }, () => resolve());
    });
  }

  /** Runs one action and classifies the answers. Never rejects. */
  async run(action: FuzzAction): Promise<ActionResult> {
    this.seen = { defect: false, failedExit: false, exit: false, chunk: false };
    this.actionIds = requestIdsOf(action);
    let framesSent = 0;
    let bytesSent = 0;
    let terminated = false;
    for (const step of action.steps) {
      if (this.isClosed) break;
      if (step.op === "send") {
        await this.send(step);
        framesSent++;
        bytesSent += frameBytes(step.frame);
      } else if (step.op === "await-exit") {
        await this.waitFor(() => this.exits.has(step.requestId));
      } else if (step.op === "await-chunk") {
        await this.waitFor(() => this.chunks.has(step.requestId));
      } else {
        terminated = true;
        this.ws.terminate();
        await this.waitFor(() => false);
      }
    }
    let answered = true;
    if (!this.isClosed) {
      const id = String(SENTINEL_ID_BASE + this.sentinels++);
      this.ws.send(`{"_tag":"Request","id":"${id}","tag":"${PROBE_TAG}","payload":{},"headers":[]}`);
      answered = await this.waitFor(() => this.exits.has(id), this.answerTimeoutMs);
      this.exits.delete(id);
      // The server has sent its close frame (we never close mid-action): the outcome is that close,
      // whose code comes with the 'close' event one round trip later.
      if (!this.isClosed && this.ws.readyState === WebSocket.CLOSING) await this.waitFor(() => false);
    }
    const outcome: Outcome = terminated
      ? "terminated"
      : this.isClosed
        ? `closed-${this.closeCode ?? 0}`
        : this.seen.defect
          ? "defect"
          : this.seen.failedExit
            ? "failed-exit"
            : this.seen.exit
              ? "exit"
              : this.seen.chunk
                ? "chunk"
                : answered
                  ? "ignored"
                  : "no-answer";
    return { outcome, framesSent, bytesSent };
  }

  /** Closes politely (or drops the TCP connection when abrupt); resolves when closed or after 2 s. */
  async close(abrupt = false): Promise<void> {
    if (this.isClosed) return;
    if (abrupt) this.ws.terminate();
    else this.ws.close(1000);
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 2_000);
      this.ws.once("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
      if (this.isClosed) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    if (!closed) this.ws.terminate();
  }
}

/** The ids (as the server echoes them: decimal strings) of the Requests an action sends. */
export function requestIdsOf(action: FuzzAction): Set<string> {
  const ids = new Set<string>();
  for (const step of action.steps) {
    if (step.op !== "send" || step.frame.data.length > 100_000) continue;
    const text = typeof step.frame.data === "string" ? step.frame.data : new TextDecoder().decode(step.frame.data);
    try {
      const msg = JSON.parse(text) as { _tag?: unknown; id?: unknown };
      if (msg?._tag === "Request" && (typeof msg.id === "string" || typeof msg.id === "number"))
        ids.add(String(msg.id));
    } catch {
      // not JSON: no id
    }
  }
  return ids;
}

/** Per-kind counters the runner aggregates. */
export interface ConnectionTally {
  actions: number;
  framesSent: number;
  bytesSent: number;
  connectionsOpened: number;
  openFailures: string[];
  outcomes: Record<string, Record<string, number>>;
}

export function emptyTally(): ConnectionTally {
  return { actions: 0, framesSent: 0, bytesSent: 0, connectionsOpened: 0, openFailures: [], outcomes: {} };
}

/**
 * Runs one fuzz lane until `shouldStop()`: opens a connection, runs 10-100 actions on it, closes it
 * (politely or abruptly), opens the next. A server close is followed by a fresh connection.
 */
export async function runLane(
  fuzzer: FrameFuzzer,
  options: ConnectionOptions,
  tally: ConnectionTally,
  shouldStop: () => boolean,
): Promise<void> {
  while (!shouldStop()) {
    let conn: FuzzConnection;
    try {
      conn = await FuzzConnection.open(options);
    } catch (e) {
      if (tally.openFailures.length < 20) tally.openFailures.push((e as Error).message);
      if (tally.openFailures.length >= 20) return;
      continue;
    }
    tally.connectionsOpened++;
    const budget = 10 + Math.floor(fuzzer.rng() * 91);
    for (let i = 0; i < budget && !conn.isClosed && !shouldStop(); i++) {
      const action = fuzzer.next();
      const result = await conn.run(action);
      tally.actions++;
      tally.framesSent += result.framesSent;
      tally.bytesSent += result.bytesSent;
      const byKind = tally.outcomes[action.kind] ?? {};
      tally.outcomes[action.kind] = byKind;
      byKind[result.outcome] = (byKind[result.outcome] ?? 0) + 1;
    }
    await conn.close(fuzzer.rng() < 0.3);
  }
}
