// `catchup-bench clinic doctor|flame|heapprofiler|bubbleprof`: run the bundled server under clinic.js,
// drive one latency case with the Node driver, and leave clinic's HTML at reports/<run>/clinic/<tool>.html.
// The run is loaded once the flags are read.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CommandModule } from "yargs";
import { runDirName } from "../bench/run/machine.js";
import { resolveClinicBin } from "../clinic/resolve.js";
import { CLINIC_TOOLS, type ClinicTool } from "../clinic/tools.js";
import { CLINIC_COMMAND, CLINIC_OPTIONS } from "../options/clinic.js";
import { readFlags } from "../options/spec.js";
import { applyOptions } from "../options/yargs.js";
import { enumFlag, UsageError, writableDirFlag } from "../util/usage.js";

/** catchup-bench's own folder: a clinic installed beside it (its optional peer) is found from here. */
const PACKAGE_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** reports/clinic-<UTC timestamp>, named like a bench run directory. */
export function defaultRunDir(now: Date): string {
  return join("reports", `clinic-${runDirName(now)}`);
}

export const clinicCommand: CommandModule = {
  command: CLINIC_COMMAND.command,
  describe: CLINIC_COMMAND.describe,
  builder: (y) => applyOptions(y, CLINIC_COMMAND),
  handler: async (argv) => {
    const tool = enumFlag("tool", argv.tool, CLINIC_TOOLS) as ClinicTool;
    const f = readFlags(CLINIC_OPTIONS, argv);
    const out = f.out ?? defaultRunDir(new Date());
    // Before anything starts: clinic is the user's to install (an optional peer dependency).
    const clinicBin = resolveClinicBin([process.cwd(), PACKAGE_ROOT]);
    const options = {
      clinicBin,
      tool,
      case: f.case,
      clients: f.clients,
      scriptBytes: f["script-bytes"],
      variant: f.variant,
      durationS: f["duration-s"],
      ackDelayMs: f["ack-delay-ms"],
      out,
      fixture: f.fixture ?? null,
      log: (line: string) => process.stderr.write(`clinic: ${line}\n`),
    };
    // Bad places and bad fixtures are usage errors (exit 2, one line), found before clinic starts.
    writableDirFlag("out", out);
    const [{ runClinic }, { FixtureError }] = await Promise.all([
      import("../clinic/run.js"),
      import("../../fixtures/meta.js"),
    ]);
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
