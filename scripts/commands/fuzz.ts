// `catchup-bench fuzz`: seeded malformed and adversarial traffic against the bundled server while a
// healthy client checks it keeps working (issue 7). Exit 0 on pass, 1 on fail, 2 on bad flags.
import type { CommandModule } from "yargs";
import { runFuzz } from "../fuzz/run.js";
import { formatFuzzReport } from "../fuzz/verdict.js";
import { intFlag } from "../usage.js";

interface FuzzArgs {
  seconds: unknown;
  seed: unknown;
  connections: unknown;
  "min-frames": unknown;
  json: boolean;
}

export const fuzzCommand: CommandModule<object, FuzzArgs> = {
  command: "fuzz",
  describe: "Fuzz the bundled server with malformed frames and faulty connections; check it stays healthy",
  builder: (y) =>
    y
      .option("seconds", { type: "string", default: "20", describe: "Fuzzing time after a short warm-up (1-3600)" })
      .option("seed", { type: "string", default: "1", describe: "PRNG seed (0-4294967295): same seed, same frames" })
      .option("connections", { type: "string", default: "4", describe: "Concurrent fuzz connections (1-64)" })
      .option("min-frames", {
        type: "string",
        default: "0",
        describe: "Keep fuzzing past --seconds until this many frames were sent (at most 4x --seconds; 0-10000000)",
      })
      .option("json", { type: "boolean", default: false, describe: "Print the figures as one JSON line too" }) as never,
  handler: async (argv) => {
    const seconds = intFlag("seconds", argv.seconds, 1, 3600);
    const seed = intFlag("seed", argv.seed, 0, 4294967295);
    const connections = intFlag("connections", argv.connections, 1, 64);
    const minFrames = intFlag("min-frames", argv["min-frames"], 0, 10_000_000);
    let result: Awaited<ReturnType<typeof runFuzz>>;
    try {
      result = await runFuzz({
        seconds,
        seed,
        connections,
        minFrames,
        log: (line) => process.stderr.write(`fuzz: ${line}\n`),
      });
    } catch (e) {
      // Only a server that cannot start gets here (e.g. dist/ not built): say so, exit 1.
      process.stderr.write(`catchup-bench: fuzz could not start the bundled server: ${(e as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
    for (const line of formatFuzzReport(result.figures, result)) process.stdout.write(`${line}\n`);
    if (argv.json) process.stdout.write(`${JSON.stringify({ ...result.figures, pass: result.pass })}\n`);
    process.exitCode = result.pass ? 0 : 1;
  },
};
