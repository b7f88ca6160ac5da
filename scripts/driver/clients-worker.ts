// Worker-thread entry: runs batches of client sessions (the Node driver) off the harness's main
// thread, so parsing megabytes of catch-up frames never delays the sampler's ticks. The thread is kept
// between batches (clients.ts workerClients).
// Protocol: each message {clients, spec} is one batch; it posts {phase, index} as sessions progress,
// then {result} (or {error}).
import { parentPort } from "node:worker_threads";
import { runClientsNode } from "./clients.js";
import type { SessionSpec } from "./session-spec.js";

const port = parentPort;
if (!port) throw new Error("clients-worker must run as a worker thread");
port.on("message", async ({ clients, spec }: { clients: number; spec: SessionSpec }) => {
  try {
    const result = await runClientsNode(clients, spec, (index, phase) => port.postMessage({ phase, index }));
    port.postMessage({ result });
  } catch (e) {
    port.postMessage({ error: (e as Error).message });
  }
});
