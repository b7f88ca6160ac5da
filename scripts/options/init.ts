// `init`: writes a starter catchup-bench.config.json for comparing two git refs of the server in the
// current repository (and, with --binding, a binding skeleton to fill in).
import type { CommandSpec } from "./spec.js";

export const INIT_OPTIONS = {
  baseline: {
    type: "string",
    defaultText: "the remote's default branch (origin/HEAD), else main or master",
    describe: "the baseline revision the starter config compares against HEAD",
  },
  binding: {
    type: "boolean",
    default: false,
    describe:
      "also write bench/binding.mjs, a binding to fill in that seeds your server from the fixture through its own API, and name it in the config (with {state} in start)",
  },
  force: {
    type: "boolean",
    default: false,
    describe: "replace an existing catchup-bench.config.json (and bench/binding.mjs, with --binding)",
  },
} as const;

export const INIT_COMMAND = {
  command: "init",
  describe:
    "Write catchup-bench.config.json in the working directory: this repository's baseline branch vs HEAD, built and started by commands read from package.json; warns outside a git repository or for a baseline that does not exist",
  options: INIT_OPTIONS,
} satisfies CommandSpec;
