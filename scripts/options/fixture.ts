// `fixture` and `fixture info` flags: the one table from which yargs, --help, docs/cli.md and validation come.
import { FIXTURE_CACHE_TEXT, FIXTURE_LIMITS } from "../../fixtures/options.js";
import type { CommandSpec } from "./spec.js";

const L = FIXTURE_LIMITS;

export const FIXTURE_OPTIONS = {
  projects: { type: "int", ...L.projects, describe: "number of projects" },
  "script-bytes": {
    type: "string",
    default: String(L.scriptBytes.default),
    describe: `exact UTF-8 bytes of each script command: B or a range MIN-MAX (each ${L.scriptBytes.min}-${L.scriptBytes.max})`,
  },
  "scripts-per-project": { type: "int", ...L.scriptsPerProject, describe: "scripts per project" },
  events: { type: "int", ...L.events, describe: "update events after the cursor, round-robin over projects" },
  threads: {
    type: "int",
    ...L.threads,
    describe: "threads, each a creation event then messages and activities, interleaved before the cursor",
  },
  "thread-events": {
    type: "int",
    ...L.threadEvents,
    describe: "messages and activities per thread (after its creation event)",
  },
  seed: { type: "int", ...L.seed, describe: "PRNG seed: same flags and seed give the same content_sha256" },
  out: {
    type: "string",
    defaultText: `${FIXTURE_CACHE_TEXT}/p{projects}-s{bytes}-e{events}.sqlite`,
    describe: "output file",
    allowEmpty: true,
  },
  force: { type: "boolean", default: false, describe: "overwrite --out if it is a regular file" },
} as const satisfies CommandSpec["options"];

export const FIXTURE_COMMAND = {
  command: "fixture",
  describe: "Build a deterministic SQLite fixture (projects with scripts, post-cursor update events)",
  options: FIXTURE_OPTIONS,
} satisfies CommandSpec;

export const FIXTURE_INFO_COMMAND = {
  command: "fixture info <path>",
  describe: "Print a fixture's metadata (JSON) after checking its schema version and its rows against content_sha256",
  positionals: { path: { describe: "fixture file" } },
  options: {},
} satisfies CommandSpec;
