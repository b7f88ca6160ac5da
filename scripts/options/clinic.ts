// `clinic` flags: the one table from which yargs, --help, docs/cli.md and validation come.
import { FIXTURE_LIMITS } from "../../fixtures/options.js";
import { DEFAULT_ACK_DELAY_MS, LATENCY_CASES, MAX_DELAY_MS } from "../../scenarios/lib/protocol.js";
import { CLINIC_TOOLS } from "../clinic/tools.js";
import { DELIVERIES } from "../server-process/bundled.js";
import type { CommandSpec } from "./spec.js";

export const CLINIC_OPTIONS = {
  case: { type: "enum", choices: LATENCY_CASES, default: "resume-many", describe: "latency case to drive" },
  clients: { type: "int", min: 1, max: 1000, default: 4, describe: "concurrent sessions per round" },
  "script-bytes": {
    type: "int",
    min: FIXTURE_LIMITS.scriptBytes.min,
    max: FIXTURE_LIMITS.scriptBytes.max,
    default: 1024,
    describe: "script size of the default fixture, bytes",
  },
  variant: { type: "enum", choices: DELIVERIES, default: "legacy", describe: "delivery strategy" },
  "duration-s": { type: "number", min: 0.5, max: 3600, default: 10, describe: "how long to drive the server, s" },
  "ack-delay-ms": {
    type: "int",
    min: 0,
    max: MAX_DELAY_MS,
    default: DEFAULT_ACK_DELAY_MS,
    describe: "client ACK delay, ms",
  },
  out: { type: "string", defaultText: "reports/clinic-<timestamp>", describe: "run directory" },
  fixture: { type: "string", describe: "use this fixture instead of the default one" },
} as const satisfies CommandSpec["options"];

export const CLINIC_COMMAND = {
  command: "clinic <tool>",
  describe: "Run the bundled server under clinic.js (doctor, flame, heapprofiler, bubbleprof) while driving one case",
  positionals: { tool: { describe: "clinic tool", choices: CLINIC_TOOLS } },
  options: CLINIC_OPTIONS,
} satisfies CommandSpec;
