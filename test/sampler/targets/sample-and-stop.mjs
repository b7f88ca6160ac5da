// Samples a target from a process of its own, stops, and then just returns: the process must exit by
// itself, so nothing the sampler started (the RSS lane's thread, timers, sockets) outlives stop().
// Usage: node sample-and-stop.mjs PID INSPECTOR_WS_URL. Prints {"stopped":{...}} before returning.
import { connectInspector } from "../../../dist/scripts/sampler/inspector.js";
import { startSampler } from "../../../dist/scripts/sampler/sampler.js";

const [pid, url] = process.argv.slice(2);
const inspector = await connectInspector(url);
let readings = 0;
let enough;
const reached = new Promise((resolve) => {
  enough = resolve;
});
const sampler = await startSampler({
  pid: Number(pid),
  inspector,
  intervalMs: 5,
  onRss: () => {
    if (++readings >= 5) enough();
  },
});
await reached;
const tid = sampler.rssLaneTid;
const summary = await sampler.stop();
await inspector.close(1_000);
process.stdout.write(`${JSON.stringify({ stopped: { tid, rssSamples: summary.rssSamples, error: summary.error } })}\n`);
