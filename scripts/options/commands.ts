// Every command's spec, in the order --help and docs/cli.md list them.
import { BENCH_COMMAND } from "./bench.js";
import { CACHE_COMMAND } from "./cache.js";
import { CLINIC_COMMAND } from "./clinic.js";
import { FIXTURE_COMMAND, FIXTURE_INFO_COMMAND } from "./fixture.js";
import { FUZZ_COMMAND } from "./fuzz.js";
import { HISTORY_COMMANDS } from "./history.js";
import { INIT_COMMAND } from "./init.js";
import { K6_OPERATOR_COMMAND } from "./k6-operator.js";
import { REPORT_COMMAND } from "./report.js";
import { SAMPLE_COMMAND } from "./sample.js";
import { SERVE_COMMAND } from "./serve.js";
import type { CommandSpec } from "./spec.js";

export const COMMAND_SPECS: readonly CommandSpec[] = [
  FIXTURE_COMMAND,
  FIXTURE_INFO_COMMAND,
  BENCH_COMMAND,
  FUZZ_COMMAND,
  REPORT_COMMAND,
  CLINIC_COMMAND,
  SERVE_COMMAND,
  K6_OPERATOR_COMMAND,
  SAMPLE_COMMAND,
  INIT_COMMAND,
  ...HISTORY_COMMANDS,
  CACHE_COMMAND,
];
