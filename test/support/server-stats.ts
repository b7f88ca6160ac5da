// The bundled server's counters (server.getConfig's `stats`), read over a fresh connection, and a
// wait on them with a deadline: tests see the server's own account of what it holds.
import { isExitFor, RawConnection } from "./raw-ws.js";
import { DEV_TOKEN, type RunningServer } from "./server.js";

/** Live tail counters of one subscription kind. */
export interface LiveStats {
  liveRetainedItems: number;
  liveOverflows: number;
}

export interface ThreadStats extends LiveStats {
  snapshots: number;
  replays: number;
  fallbacks: Record<string, number>;
}

export interface ServerStats {
  replayPagesRead: number;
  shell: LiveStats;
  threads: ThreadStats;
}

export async function serverStats(server: RunningServer): Promise<ServerStats> {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  try {
    conn.request("1", "server.getConfig", {});
    const exit = await conn.next(isExitFor("1"));
    return (exit.exit as { value: { stats: ServerStats } }).value.stats;
  } finally {
    await conn.close();
  }
}

/** Polls server.getConfig until `ok` holds of the counters, or throws after timeoutMs naming what it last saw. */
export async function serverStatsUntil(
  server: RunningServer,
  ok: (s: ServerStats) => boolean,
  timeoutMs = 20_000,
): Promise<ServerStats> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const s = await serverStats(server);
    if (ok(s)) return s;
    if (performance.now() > deadline) throw new Error(`server counters never got there: ${JSON.stringify(s)}`);
  }
}
