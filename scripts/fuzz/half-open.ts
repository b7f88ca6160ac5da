// Connection-level faults on raw TCP sockets: half-open connections held open (silent, half a
// handshake, half a frame, never reading) and TCP drops in the middle of a server frame. A WebSocket
// library will not misbehave like this on purpose, so these speak RFC 6455 by hand (wsframe.ts).
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { SUBSCRIBE_TAG } from "../../scenarios/lib/protocol.js";
import { pick, type Rng } from "./frames.js";
import { encodeClientFrame, HALF_OPEN_KINDS, type HalfOpenKind, OPCODE, upgradeRequest } from "./wsframe.js";

export interface HalfOpenTally {
  opened: Record<HalfOpenKind, number>;
  /** Connections the server closed on its own while held (e.g. its own timeouts). */
  closedByServer: number;
  errors: string[];
}

export function emptyHalfOpenTally(): HalfOpenTally {
  return {
    opened: Object.fromEntries(HALF_OPEN_KINDS.map((k) => [k, 0])) as Record<HalfOpenKind, number>,
    closedByServer: 0,
    errors: [],
  };
}

const SUBSCRIBE_SNAPSHOT = JSON.stringify({
  _tag: "Request",
  id: "1",
  tag: SUBSCRIBE_TAG,
  payload: { requestCompletionMarker: true },
  headers: [],
});

/** Connects; resolves once TCP is up. Every wait is bounded. */
function tcp(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`tcp connect to ${host}:${port} timed out`));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** Sends the upgrade request and waits for the end of the 101 response headers. */
function upgrade(socket: Socket, url: URL, token: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let head = "";
    const timer = setTimeout(() => done(new Error("upgrade timed out")), timeoutMs);
    const onData = (d: Buffer) => {
      head += d.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      if (!head.startsWith("HTTP/1.1 101")) done(new Error(`upgrade refused: ${head.split("\r\n")[0]}`));
      else done(null);
    };
    const onClose = () => done(new Error("closed during upgrade"));
    const done = (e: Error | null) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      if (e) reject(e);
      else resolve();
    };
    socket.on("data", onData);
    socket.once("close", onClose);
    socket.write(
      upgradeRequest(url.hostname, Number(url.port), url.pathname, token, randomBytes(16).toString("base64")),
    );
  });
}

function textFrame(s: string): Uint8Array {
  return encodeClientFrame(OPCODE.text, new TextEncoder().encode(s), randomBytes(4));
}

/**
 * Opens one raw-socket fault of a random kind. Held kinds resolve with the socket still open (the
 * caller destroys it later); close-mid-chunk resolves after it dropped the connection.
 */
export async function openHalfOpen(
  rng: Rng,
  url: string,
  token: string,
  tally: HalfOpenTally,
  timeoutMs = 5_000,
): Promise<Socket | null> {
  const kind = pick(rng, HALF_OPEN_KINDS);
  const u = new URL(url);
  let socket: Socket | null = null;
  try {
    socket = await tcp(u.hostname, Number(u.port), timeoutMs);
    const s = socket;
    s.on("error", () => {});
    tally.opened[kind]++;
    switch (kind) {
      case "tcp-silent":
        break;
      case "partial-upgrade": {
        const req = upgradeRequest(u.hostname, Number(u.port), u.pathname, token, randomBytes(16).toString("base64"));
        s.write(req.slice(0, Math.max(1, Math.floor(req.length * rng()))));
        break;
      }
      case "partial-frame": {
        await upgrade(s, u, token, timeoutMs);
        const frame = textFrame(SUBSCRIBE_SNAPSHOT);
        s.write(frame.subarray(0, Math.max(1, Math.floor(frame.length * rng()))));
        break;
      }
      case "no-read": {
        await upgrade(s, u, token, timeoutMs);
        s.pause();
        s.write(textFrame(SUBSCRIBE_SNAPSHOT));
        break;
      }
      case "close-mid-chunk": {
        await upgrade(s, u, token, timeoutMs);
        // Drop the TCP connection on the first bytes of the answer: the server is mid-frame.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          s.once("data", () => {
            clearTimeout(timer);
            resolve();
          });
          s.once("close", () => {
            clearTimeout(timer);
            resolve();
          });
          s.write(textFrame(SUBSCRIBE_SNAPSHOT));
        });
        s.resetAndDestroy();
        return null;
      }
    }
    // The server ending a held connection (its own timeouts) is fine; count it. A paused socket
    // never sees the end, so this is a lower bound.
    s.once("end", () => {
      tally.closedByServer++;
    });
    return s;
  } catch (e) {
    if (tally.errors.length < 20) tally.errors.push(`${kind}: ${(e as Error).message}`);
    socket?.destroy();
    return null;
  }
}
