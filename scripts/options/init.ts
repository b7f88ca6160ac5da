// `init`: writes a starter catchup-bench.config.json for comparing two git refs of the server in the
// current repository.
import type { CommandSpec } from "./spec.js";

export const INIT_OPTIONS = {
  baseline: {
    type: "string",
    defaultText: "the remote's default branch (origin/HEAD), else main",
    describe: "the baseline revision the starter config compares against HEAD",
  },
  force: { type: "boolean", default: false, describe: "replace an existing catchup-bench.config.json" },
} as const;

export const INIT_COMMAND = {
  command: "init",
  describe:
    "Write catchup-bench.config.json in the working directory: this repository's baseline branch vs HEAD, built and started by commands to edit",
  options: INIT_OPTIONS,
} satisfies CommandSpec;
