// `catchup-bench clinic doctor|flame|heapprofiler|bubbleprof`: run the bundled server under clinic.js,
// drive one latency case with the Node driver, and leave clinic's HTML at reports/<run>/clinic/<tool>.html.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { FixtureError } from "../../fixtures/meta.js";
import { runClinic } from "../clinic/run.js";
import { CLINIC_TOOLS, type ClinicTool } from "../clinic/tools.js";
import type { LatencyCase } from "../results.js";
import { enumFlag, intFlag, numberFlag, UsageError, writableDirFlag } from "../usage.js";

const CASES: readonly LatencyCase[] = ["snapshot", "resume-none", "resume-one", "resume-many"];
const VARIANTS = ["legacy", "batched"] as const;

interface ClinicArgs {
  tool: string;
  case: string;
  clients: unknown;
  "script-bytes": unknown;
  variant: string;
  "duration-s": unknown;
  "ack-delay-ms": unknown;
  out?: string;
  fixture?: string;
}

/** reports/clinic-<UTC timestamp>, file-name safe. */
export function defaultRunDir(now: Date): string {
  return join("reports", `clinic-${now.toISOString().replace(/[:.]/g, "-")}`);
}

export const clinicCommand: CommandModule<object, ClinicArgs> = {
  command: "clinic <tool>",
  describe: "Run the bundled server under clinic.js (doctor, flame, heapprofiler, bubbleprof) while driving one case",
  builder: (y) =>
    y
      .positional("tool", { type: "string", demandOption: true, describe: `one of ${CLINIC_TOOLS.join(", ")}` })
      .option("case", { type: "string", default: "resume-many", describe: `latency case: ${CASES.join(", ")}` })
      .option("clients", { type: "string", default: "4", describe: "concurrent sessions per round" })
      .option("script-bytes", { type: "string", default: "1024", describe: "script size of the default fixture" })
      .option("variant", { type: "string", default: "legacy", describe: "delivery strategy: legacy or batched" })
      .option("duration-s", { type: "string", default: "10", describe: "how long to drive the server (s)" })
      .option("ack-delay-ms", { type: "string", default: "100", describe: "client ACK delay (ms)" })
      .option("out", { type: "string", describe: "run directory (default reports/clinic-<timestamp>)" })
      .option("fixture", { type: "string", describe: "use this fixture instead of the default one" }) as never,
  handler: async (argv) => {
    const tool = enumFlag("tool", argv.tool, CLINIC_TOOLS) as ClinicTool;
    const out = argv.out ?? defaultRunDir(new Date());
    const options = {
      tool,
      case: enumFlag("case", argv.case, CASES),
      clients: intFlag("clients", argv.clients, 1, 1000),
      scriptBytes: intFlag("script-bytes", argv["script-bytes"], 16, 1024 * 1024),
      variant: enumFlag("variant", argv.variant, VARIANTS),
      durationS: numberFlag("duration-s", argv["duration-s"], 0.5, 3600),
      ackDelayMs: intFlag("ack-delay-ms", argv["ack-delay-ms"], 0, 60_000),
      out,
      fixture: argv.fixture ?? null,
      log: (line: string) => process.stderr.write(`clinic: ${line}\n`),
    };
    // Bad places and bad fixtures are usage errors (exit 2, one line), found before clinic starts.
    writableDirFlag("out", out);
    let outcome: Awaited<ReturnType<typeof runClinic>>;
    try {
      outcome = await runClinic(options);
    } catch (e) {
      if (e instanceof FixtureError) throw new UsageError(e.message);
      throw e;
    }
    process.stdout.write(`${outcome.htmlPath}\n`);
  },
};
