// Test support: a minimal Chrome DevTools Protocol client for a server started with
// `--inspect=127.0.0.1:0` (the URL is on its stderr), to force GC and read heap usage from outside.
import WebSocket from "ws";

export class Inspector {
  private nextId = 1;
  private pending = new Map<number, (result: Record<string, unknown>) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown> };
      if (msg.id !== undefined) {
        this.pending.get(msg.id)?.(msg.result ?? {});
        this.pending.delete(msg.id);
      }
    });
  }

  /** Waits (up to timeoutMs) for the debugger URL on the server's stderr, then connects. */
  static async attach(stderr: () => string, timeoutMs = 10_000): Promise<Inspector> {
    const deadline = Date.now() + timeoutMs;
    let url: string | undefined;
    while (url === undefined) {
      url = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(stderr())?.[1];
      if (url !== undefined) break;
      if (Date.now() > deadline) throw new Error(`no inspector URL on stderr within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20)); // polling a log buffer, bounded by the deadline
    }
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new Inspector(ws);
  }

  call(method: string, params: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer within ${timeoutMs} ms`)), timeoutMs);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
  }

  /** Heap used after forced full GCs. */
  async heapAfterGc(): Promise<number> {
    for (let i = 0; i < 3; i++) await this.call("HeapProfiler.collectGarbage");
    return (await this.call("Runtime.getHeapUsage")).usedSize as number;
  }

  close(): void {
    this.ws.close();
  }
}
