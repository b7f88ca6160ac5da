// `catchup-bench fuzz`: seeded malformed and adversarial traffic against the bundled server while a
// healthy client checks it keeps working. Exit 0 on pass, 1 on fail, 2 on bad flags, 3 when the
// server could not be started. The fuzzer is loaded once the flags are read.
import type { CommandModule } from "yargs";
import { formatFuzzReport } from "../fuzz/fuzz-verdict.js";
import type { runFuzz } from "../fuzz/run.js";
import { FUZZ_COMMAND, FUZZ_OPTIONS } from "../options/fuzz.js";
import { readFlags } from "../options/spec.js";
import { applyOptions } from "../options/yargs.js";
import { EXIT } from "../util/exit-codes.js";
import { tempDirProblem } from "../util/temp-dir.js";
import { UsageError } from "../util/usage.js";

export const fuzzCommand: CommandModule = {
  command: FUZZ_COMMAND.command,
  describe: FUZZ_COMMAND.describe,
  builder: (y) => applyOptions(y, FUZZ_COMMAND),
  handler: async (argv) => {
    const f = readFlags(FUZZ_OPTIONS, argv);
    const { seconds, seed, connections } = f;
    const minFrames = f["min-frames"];
    // Its fixture and the server's copy live in TMPDIR: a bad one is a usage error, said before starting.
    const tmp = tempDirProblem();
    if (tmp) throw new UsageError(tmp);
    let result: Awaited<ReturnType<typeof runFuzz>>;
    try {
      const { runFuzz } = await import("../fuzz/run.js");
      result = await runFuzz({
        seconds,
        seed,
        connections,
        minFrames,
        log: (line) => process.stderr.write(`fuzz: ${line}\n`),
        handleSignals: true,
      });
    } catch (e) {
      // Only a server that cannot start gets here (e.g. dist/ not built): no result.
      process.stderr.write(`catchup-bench: fuzz could not start the bundled server: ${(e as Error).message}\n`);
      process.exitCode = EXIT.noResult;
      return;
    }
    for (const line of formatFuzzReport(result.figures, result)) process.stdout.write(`${line}\n`);
    if (f.json) process.stdout.write(`${JSON.stringify({ ...result.figures, pass: result.pass })}\n`);
    process.exitCode = result.pass ? EXIT.ok : EXIT.regression;
  },
};
