// `fuzz` flags: the one table from which yargs, --help, docs/cli.md and validation come.
import type { CommandSpec } from "./spec.js";

export const FUZZ_OPTIONS = {
  seconds: { type: "int", min: 1, max: 3600, default: 20, describe: "fuzzing time after a short warm-up, s" },
  seed: { type: "int", min: 0, max: 4_294_967_295, default: 1, describe: "PRNG seed: same seed, same frames" },
  connections: { type: "int", min: 1, max: 64, default: 4, describe: "concurrent fuzz connections" },
  "min-frames": {
    type: "int",
    min: 0,
    max: 10_000_000,
    default: 0,
    describe: "keep fuzzing past --seconds until this many frames were sent (at most 4x --seconds)",
  },
  json: { type: "boolean", default: false, describe: "print the figures as one JSON line too" },
} as const satisfies CommandSpec["options"];

export const FUZZ_COMMAND = {
  command: "fuzz",
  describe: "Fuzz the bundled server with malformed frames and faulty connections; check it stays healthy",
  options: FUZZ_OPTIONS,
} satisfies CommandSpec;
