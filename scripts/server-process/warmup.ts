// Readiness as a real server needs it: a port can open (or a ready line appear) a while before the
// server answers WebSocket upgrades. After that first sign, the harness tries an upgrade (each try
// with its own short timeout), then a short warm-up session, and retries with backoff until one
// completes or the start timeout is spent. A failure says what was tried and what happened.
import { randomBytes } from "node:crypto";
import { request } from "node:http";

/** What one upgrade attempt saw. */
export interface UpgradeAttempt {
  connected: boolean;
  upgraded: boolean;
  /** The HTTP status the server answered the upgrade with instead of 101. */
  status: number | null;
  /** The start of that answer's body. */
  body: string;
  /** A socket error code or message (ECONNREFUSED, ECONNRESET, ...). */
  error: string | null;
  timedOut: boolean;
}

/** An attempt that got nowhere yet (no connection, no answer, no error). */
export function blankAttempt(): UpgradeAttempt {
  return { connected: false, upgraded: false, status: null, body: "", error: null, timedOut: false };
}

/** Sends one WebSocket upgrade request to url (ws://) and reports how far it got; never rejects. */
export function tryUpgrade(url: string, headers: Record<string, string>, timeoutMs: number): Promise<UpgradeAttempt> {
  const u = new URL(url);
  const result = blankAttempt();
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = request({
      host: u.hostname,
      port: Number(u.port || 80),
      path: `${u.pathname}${u.search}`,
      agent: false,
      headers: {
        ...headers,
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
      },
    });
    const timer = setTimeout(() => {
      result.timedOut = true;
      finish();
    }, timeoutMs);
    req.on("socket", (socket) => {
      socket.once("connect", () => {
        result.connected = true;
      });
    });
    req.on("upgrade", (res, socket) => {
      result.connected = true;
      result.upgraded = res.statusCode === 101;
      // A close frame (1000, masked as a client must) so the server sees a clean goodbye.
      socket.end(Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]));
      finish();
    });
    req.on("response", (res) => {
      result.connected = true;
      result.status = res.statusCode ?? null;
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        result.body = (result.body + d).slice(0, 300);
        if (result.body.length >= 300) finish();
      });
      res.on("end", finish);
      res.on("error", finish);
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      result.error = e.code ?? e.message;
      finish();
    });
    req.end();
  });
}

/** One line for a person: what the upgrade attempt saw. */
export function describeUpgrade(a: UpgradeAttempt, timeoutMs: number): string {
  if (a.upgraded) return "connected and upgraded";
  if (a.status !== null) {
    const body = a.body.trim().replace(/\s+/g, " ");
    return `connected; the server answered the WebSocket upgrade with HTTP ${a.status}${body ? `: ${body}` : ""}`;
  }
  if (a.connected) {
    return a.timedOut
      ? `connected, but the WebSocket upgrade was not answered within ${timeoutMs} ms`
      : `connected, then the connection ended without an answer to the upgrade (${a.error ?? "closed"})`;
  }
  return a.timedOut ? `could not connect within ${timeoutMs} ms` : `could not connect (${a.error ?? "unknown error"})`;
}

/** Whether trying again may help: the server is not up yet, or said so (5xx, 408, 429). */
export function upgradeRetryable(a: UpgradeAttempt): boolean {
  if (a.upgraded) return false;
  if (a.status === null) return true;
  return a.status >= 500 || a.status === 408 || a.status === 429;
}

/** A session error that comes from the server not knowing the subscribe tag. */
export function isUnknownTag(error: string | null): boolean {
  return error !== null && /unknown (request )?tag|no handler for|unknown rpc|tag not found/i.test(error);
}

/** A session error that says nothing was answered yet (connection refused, closed or not opened). */
export function sessionRetryable(error: string | null): boolean {
  if (error === null || isUnknownTag(error)) return false;
  return /websocket error|connection closed|waiting for the connection to open|ECONNREFUSED|ECONNRESET|socket hang up/i.test(
    error,
  );
}

export interface WarmUpOptions {
  url: string;
  /** Headers a session sends (auth). */
  headers: Record<string, string>;
  /** Per-attempt connect/upgrade timeout. */
  connectTimeoutMs: number;
  /** Absolute deadline (Date.now() clock): the rest of the start timeout. */
  deadline: number;
  /** The start timeout, for the message. */
  startTimeoutMs: number;
  subscribeTag: string;
  /**
   * A warm-up session, null to stop at the upgrade. It runs with the trial timeout: once the server
   * upgrades a connection, a slow first catch-up is the server's, not a start that failed.
   */
  session: (() => Promise<{ ok: boolean; error: string | null }>) | null;
  signal?: AbortSignal;
  /** True when the target died (no point retrying). */
  gone?: () => boolean;
}

export class WarmUpError extends Error {
  override readonly name = "WarmUpError";
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });

/**
 * Retries upgrade + warm-up session with backoff (100 ms doubling to 1 s) until one completes, no
 * new attempt starting after the deadline; throws a WarmUpError saying what was tried and what
 * happened last.
 */
export async function warmUp(o: WarmUpOptions): Promise<void> {
  const started = Date.now();
  let attempts = 0;
  let backoff = 100;
  let last = "nothing was tried";
  const fail = (why: string, hint = ""): never => {
    throw new WarmUpError(
      `did not complete a warm-up session within its start timeout (${attempts} attempt${attempts === 1 ? "" : "s"} in ${Date.now() - started} ms of ${o.startTimeoutMs}): ${why}${hint}`,
    );
  };
  for (;;) {
    if (o.signal?.aborted) throw new WarmUpError("interrupted while warming up");
    attempts++;
    const left = o.deadline - Date.now();
    const upgrade = await tryUpgrade(o.url, o.headers, Math.max(100, Math.min(o.connectTimeoutMs, left)));
    let retry: boolean;
    if (!upgrade.upgraded) {
      last = describeUpgrade(upgrade, o.connectTimeoutMs);
      retry = upgradeRetryable(upgrade);
    } else if (o.session === null) {
      return;
    } else {
      const s = await o.session();
      if (s.ok) return;
      last = `connected and upgraded; the warm-up session (${o.subscribeTag}) failed: ${s.error}`;
      if (isUnknownTag(s.error)) {
        return fail(last, `; the server does not know ${o.subscribeTag}: pass its tag with --subscribe-tag`);
      }
      retry = sessionRetryable(s.error);
    }
    if (!retry) return fail(last);
    if (o.gone?.()) return fail(`${last}; then the target exited`);
    if (Date.now() + backoff >= o.deadline) return fail(last);
    await sleep(backoff, o.signal);
    backoff = Math.min(1000, backoff * 2);
  }
}
