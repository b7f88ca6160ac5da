// The bundled server as the client benchmarks see it: a child process (compiled JS) and a URL.
// scripts/ never imports the server; it starts it like any target (scripts/target/) and reads its ready line.
import { startBundled } from "../target/bundled.js";

export interface BenchTarget {
  url: string;
  fixture: { latestSequence: number; cursorSequence: number };
  stop: () => Promise<void>;
}

/** Starts `node dist/server-under-test/main.js --db DB --port 0 ...args`; rejects if not ready in timeoutMs. */
export async function startBundledServer(db: string, args: string[], timeoutMs = 30_000): Promise<BenchTarget> {
  const { proc, ready } = await startBundled({ db, extra: args, timeoutMs });
  return {
    url: ready.url,
    fixture: ready.fields.fixture as BenchTarget["fixture"],
    stop: async () => {
      await proc.stop();
    },
  };
}
