// Starts an RSS lane on this very process and returns without stopping it: a lane nobody stopped
// must not keep the process alive. Prints {"started":{tid}} first.
import { startRssLane } from "../../../dist/scripts/sampler/rss-lane.js";

const lane = await startRssLane({ pid: process.pid, intervalMs: 5, origin: performance.now(), onBatch: () => {} });
process.stdout.write(`${JSON.stringify({ started: { tid: lane.tid } })}\n`);
