// Leaves an RSS lane on this very process running, and the spare thread a stopped lane started for
// the next lane idle, and returns: neither the lane nobody stopped nor the idle spare may keep the
// process alive. Prints {"started":{tid}} (the running lane's) first.
import { startRssLane } from "../../../dist/scripts/sampler/rss-lane.js";

const lane = await startRssLane({ pid: process.pid, intervalMs: 5, origin: performance.now(), onBatch: () => {} });
// Its spare starts once it is stopped, and waits idle for a lane that never comes.
const stopped = await startRssLane({
  pid: process.pid,
  intervalMs: 5,
  origin: performance.now(),
  onBatch: () => {},
  spare: true,
});
await stopped.stop();
process.stdout.write(`${JSON.stringify({ started: { tid: lane.tid } })}\n`);
