// `sample` flags: the one table from which yargs, --help, docs/cli.md and validation come.
import { DEFAULT_RSS_INTERVAL_MS, MIN_HEAP_INTERVAL_MS } from "../sampler/lane-defaults.js";
import type { CommandSpec } from "./spec.js";

export const SAMPLE_OPTIONS = {
  pid: { type: "int", min: 1, max: 4_194_304, describe: "the server's process id (or give --port)" },
  port: {
    type: "int",
    min: 1,
    max: 65_535,
    describe: "the server's listening TCP port: the process owning it is sampled (or give --pid)",
  },
  "inspect-port": {
    type: "int",
    min: 1,
    max: 65_535,
    describe:
      "the server's inspector port on 127.0.0.1 (default: found among its loopback ports; none found = RSS only)",
  },
  out: { type: "string", describe: "samples file to write (JSONL; must not exist; its directory is created)" },
  "interval-ms": {
    type: "int",
    min: 1,
    max: 10_000,
    default: DEFAULT_RSS_INTERVAL_MS,
    describe: "RSS lane interval, ms",
  },
  "heap-interval-ms": {
    type: "int",
    min: MIN_HEAP_INTERVAL_MS,
    max: 60_000,
    defaultText: "--interval-ms (100 below 10)",
    describe: "heap lane interval, ms",
  },
  "proc-interval-ms": {
    type: "int",
    min: 100,
    max: 60_000,
    default: 1000,
    describe: "how often the kernel's peak RSS (VmHWM) and the server's CPU time are recorded, ms",
  },
  duration: {
    type: "number",
    min: 0.1,
    max: 604_800,
    describe: "stop after this many seconds (default: until SIGINT or SIGTERM)",
  },
  "gc-at-end": {
    type: "boolean",
    default: false,
    describe: "when stopping, force a GC through the inspector and record the post-GC heap",
  },
} as const satisfies CommandSpec["options"];

export const SAMPLE_COMMAND = {
  command: "sample",
  describe:
    "Sample a running server's RSS and heap (the bench's sampler) on its host, stamped with wall-clock time, for `report --merge --samples`",
  options: SAMPLE_OPTIONS,
  notes:
    'Runs until SIGINT, SIGTERM or --duration (exit 0), or until the server exits (exit 3; the samples are kept). SIGUSR2 writes a mark and, with an inspector, forces a GC and records the post-GC heap ("after the storm"). The file is written every 20 ms: a SIGKILL loses the last 20-50 ms of samples on an idle machine.',
} satisfies CommandSpec;
