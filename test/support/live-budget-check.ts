// The live retention budget, checked the same way for every subscription kind of the bundled server:
// a subscriber holding the ACK of its marker chunk gets 1,000 live items in one chunk once it ACKs;
// with 1,001 waiting its stream ends with LiveBufferError and the server holds nothing for it.
import { expect } from "vitest";
import { isChunkFor, isExitFor, RawConnection, values } from "./raw-ws.js";
import { DEV_TOKEN, type RunningServer } from "./server.js";
import { type LiveStats, type ServerStats, serverStats, serverStatsUntil } from "./server-stats.js";

export interface LiveBudgetCase {
  server: RunningServer;
  /**
   * Subscribes conn as request "1" through its completion marker, leaving the marker chunk un-ACKed,
   * with its cursor `past` events beyond the fixture's latest (the events appended earlier here).
   */
  subscribe: (conn: RawConnection, past: number) => Promise<void>;
  /** Appends n live events for that subscription, one after another, through writer. */
  append: (writer: RawConnection, n: number, label: string) => Promise<void>;
  /** The subscription kind's counters in server.getConfig's stats. */
  counters: (s: ServerStats) => LiveStats;
}

export async function checkLiveBudget(c: LiveBudgetCase): Promise<void> {
  const open = () => RawConnection.open(c.server.url, { bearer: DEV_TOKEN });
  const until = (ok: (s: LiveStats) => boolean) => serverStatsUntil(c.server, (s) => ok(c.counters(s)));
  const writer = await open();
  // within the budget: the marker chunk held (not ACKed) while 1,000 events are appended
  const within = await open();
  await c.subscribe(within, 0);
  await c.append(writer, 1000, "within");
  await until((s) => s.liveRetainedItems === 1000);
  let from = within.frames.length;
  within.ack("1");
  const chunk = await within.next(isChunkFor("1"), 20_000, from);
  expect(values(chunk)).toHaveLength(1000);
  await within.close();
  await until((s) => s.liveRetainedItems === 0);
  // one beyond: the stream fails once the held chunk is ACKed, and nothing is held any more
  const beyond = await open();
  await c.subscribe(beyond, 1000);
  await c.append(writer, 1001, "beyond");
  await until((s) => s.liveOverflows === 1);
  from = beyond.frames.length;
  beyond.ack("1");
  const exit = await beyond.next(isExitFor("1"), 20_000, from);
  expect(JSON.stringify(exit.exit)).toContain("LiveBufferError");
  expect(beyond.frames.slice(from).filter(isChunkFor("1"))).toHaveLength(0);
  await Promise.all([beyond.close(), writer.close()]);
  expect(c.counters(await serverStats(c.server)).liveRetainedItems).toBe(0);
}
