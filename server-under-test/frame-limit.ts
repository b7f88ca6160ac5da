// Incoming WebSocket frames over 1 MiB are refused (close 1009) before they are buffered.
// @effect/platform-node creates its ws WebSocketServer internally with ws's default 100 MiB
// maxPayload and no option to change it, so we set the limit on each server instance as it
// handles an upgrade. The same hook records open sockets so shutdown can close them.
import { type WebSocket, WebSocketServer } from "ws";

export const MAX_FRAME_BYTES = 1024 * 1024;

const open = new Set<WebSocket>();
let installed = false;

/** Installs the frame limit and socket tracking on ws's WebSocketServer (idempotent). */
export function installFrameLimit(): void {
  if (installed) return;
  installed = true;
  const original = WebSocketServer.prototype.handleUpgrade;
  WebSocketServer.prototype.handleUpgrade = function (this: WebSocketServer, req, socket, head, cb) {
    (this.options as { maxPayload?: number }).maxPayload = MAX_FRAME_BYTES;
    return original.call(this, req, socket, head, (ws, request) => {
      open.add(ws);
      ws.once("close", () => open.delete(ws));
      cb(ws, request);
    });
  };
}

/** Sends a close frame (1001 going away) to every open socket; terminates those still open after graceMs. */
export function closeAllSockets(graceMs: number): Promise<void> {
  if (open.size === 0) return Promise.resolve();
  const sockets = [...open];
  return new Promise((resolve) => {
    let remaining = sockets.length;
    const timer = setTimeout(() => {
      for (const ws of sockets) ws.terminate();
      resolve();
    }, graceMs);
    for (const ws of sockets) {
      ws.once("close", () => {
        remaining -= 1;
        if (remaining === 0) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.close(1001, "server shutting down");
    }
  });
}
