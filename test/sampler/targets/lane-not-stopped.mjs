// Starts an RSS lane on this very process, with a spare thread for the next lane, and returns without
// stopping it: neither the lane nobody stopped nor the idle spare may keep the process alive.
// Prints {"started":{tid}} first.
import { startRssLane } from "../../../dist/scripts/sampler/rss-lane.js";

const lane = await startRssLane({
  pid: process.pid,
  intervalMs: 5,
  origin: performance.now(),
  onBatch: () => {},
  spare: true,
});
process.stdout.write(`${JSON.stringify({ started: { tid: lane.tid } })}\n`);
