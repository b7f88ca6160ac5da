// Test aid: raw WebSocket upgrades and single RPC calls against a real server, with every wait bounded.
import { request as httpRequest } from "node:http";
import WebSocket from "ws";

export type UpgradeResult =
  | { kind: "open"; ws: WebSocket }
  | { kind: "refused"; status: number; body: string }
  | { kind: "error"; message: string };

/** Tries a WebSocket upgrade; reports the HTTP refusal (status + body) instead of throwing. */
export function tryUpgrade(
  url: string,
  options: { headers?: Record<string, string>; protocols?: string[] } = {},
  timeoutMs = 5_000,
): Promise<UpgradeResult> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, options.protocols ?? [], {
      headers: options.headers ?? {},
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      maxPayload: 64 * 1024 * 1024,
    });
    let settled = false;
    const settle = (r: UpgradeResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    ws.once("open", () => settle({ kind: "open", ws }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
      });
      const done = () => {
        settle({ kind: "refused", status: res.statusCode ?? 0, body });
        ws.terminate();
      };
      res.once("end", done);
      res.once("error", done);
      res.once("close", done);
    });
    ws.once("error", (e) => settle({ kind: "error", message: e.message }));
  });
}

/** A plain HTTP GET (no upgrade) to see what a non-WebSocket request gets. */
export function httpGet(url: string, headers: Record<string, string> = {}, timeoutMs = 5_000) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { headers, timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

export interface RpcExit {
  success: boolean;
  /** The raw Exit frame text. */
  raw: string;
  exit: { _tag: string; value?: unknown; cause?: unknown };
}

/**
 * Sends one Request and ACKs its chunks until its Exit, or until the completion marker when
 * `untilKind` is given (then the chunks' values are returned and the stream is interrupted).
 */
export function call(
  ws: WebSocket,
  id: string,
  tag: string,
  payload: unknown,
  options: { headers?: [string, string][]; untilKind?: string; timeoutMs?: number } = {},
): Promise<{ exit: RpcExit | null; values: unknown[]; frames: string[] }> {
  return new Promise((resolve, reject) => {
    const values: unknown[] = [];
    const frames: string[] = [];
    const timer = setTimeout(() => {
      ws.off("message", onMessage);
      reject(new Error(`no answer to ${tag} (id ${id}) within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    const onMessage = (data: Buffer) => {
      const text = data.toString("utf8");
      const msg = JSON.parse(text) as { _tag: string; requestId?: string; values?: unknown[]; exit?: RpcExit["exit"] };
      if (msg.requestId !== id && msg._tag !== "Defect") return;
      frames.push(text);
      if (msg._tag === "Defect") {
        finish({ exit: null, values, frames });
      } else if (msg._tag === "Chunk") {
        values.push(...(msg.values ?? []));
        ws.send(JSON.stringify({ _tag: "Ack", requestId: id }));
        if (options.untilKind && (msg.values ?? []).some((v) => (v as { kind?: string })?.kind === options.untilKind)) {
          ws.send(JSON.stringify({ _tag: "Interrupt", requestId: id }));
          finish({ exit: null, values, frames });
        }
      } else if (msg._tag === "Exit" && msg.exit) {
        finish({ exit: { success: msg.exit._tag === "Success", raw: text, exit: msg.exit }, values, frames });
      }
    };
    const finish = (r: { exit: RpcExit | null; values: unknown[]; frames: string[] }) => {
      clearTimeout(timer);
      ws.off("message", onMessage);
      resolve(r);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ _tag: "Request", id, tag, payload, headers: options.headers ?? [] }));
  });
}
