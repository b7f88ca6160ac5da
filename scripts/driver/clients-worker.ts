// Worker-thread entry: runs one batch of client sessions (the Node driver) off the harness's main
// thread, so parsing megabytes of catch-up frames never delays the sampler's ticks.
// Protocol: workerData = {clients, spec}; posts {phase, index} as sessions progress, then {result}
// (or {error}).
import { parentPort, workerData } from "node:worker_threads";
import { runClientsNode } from "./clients.js";
import type { SessionSpec } from "./session-spec.js";

const { clients, spec } = workerData as { clients: number; spec: SessionSpec };
const port = parentPort;
if (!port) throw new Error("clients-worker must run as a worker thread");
try {
  const result = await runClientsNode(clients, spec, (index, phase) => port.postMessage({ phase, index }));
  port.postMessage({ result });
} catch (e) {
  port.postMessage({ error: (e as Error).message });
}
