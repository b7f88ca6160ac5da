// Runs batches of sessions through one workerClients() (the compiled driver, as the bench runs it)
// and then just returns without close(): the process must exit by itself, so an idle kept thread
// never holds a run open. Usage: node worker-batches.mjs URL TOKEN. Prints one JSON line.
import { workerClients } from "../../../dist/scripts/driver/clients.js";

const [url, token] = process.argv.slice(2);
const clients = workerClients();
const spec = {
  url,
  token,
  headers: {},
  subscribeTag: "orchestration.subscribeShell",
  subscribePayload: { requestCompletionMarker: true },
  completion: { field: "kind", value: "synchronized" },
  ackDelayMs: 20,
  holdMs: 0,
  probe: null,
  timeoutMs: 10_000,
};
const batches = [];
for (let i = 0; i < 3; i++) {
  const phases = [];
  const { rows } = await clients.run(2, spec, (index, phase) => phases.push(`${index}:${phase}`));
  batches.push({ ok: rows.map((r) => r.ok), closes: phases.filter((p) => p.endsWith(":close")).length });
}
const threadsBefore = clients.threads();
// A batch the driver refuses (no clients) fails; its thread is ended and the next batch gets another.
const failed = await clients.run(0, spec).then(
  () => null,
  (e) => e.message,
);
const after = await clients.run(1, spec);
process.stdout.write(
  `${JSON.stringify({ batches, threadsBefore, failed, after: after.rows.map((r) => r.ok), threads: clients.threads() })}\n`,
);
