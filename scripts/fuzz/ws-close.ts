// Closing a WebSocket with a bound wait: a peer that never answers the close handshake must not hang
// the caller, so the TCP connection is dropped after a grace period.
import WebSocket from "ws";

/** Closes ws with code 1000; resolves once it is closed, terminating it after graceMs if still open. */
export function closeWithin(ws: WebSocket, graceMs = 2_000): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      ws.terminate();
      resolve();
    }, graceMs);
    ws.once("close", () => {
      clearTimeout(t);
      resolve();
    });
    ws.close(1000);
  });
}
