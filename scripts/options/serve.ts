// `serve`: every argument goes to the bundled server, which validates and documents its own flags
// (`serve --help`); the table is empty so the CLI adds nothing of its own.
import type { CommandSpec } from "./spec.js";

export const SERVE_COMMAND = {
  command: "serve",
  describe:
    "Run the bundled Effect RPC server on a fixture: serve --db FIXTURE [--host 127.0.0.1] [--port 0] " +
    "[--delivery legacy|batched] [--item-shape reference|lean] [--token SECRET[:scope,scope]]... " +
    "[--token-env NAME]... [--max-replay-events N] [--max-replay-bytes N] [--max-initial-chunk-bytes N] [--max-projected-bytes N] " +
    "[--replay-group-items 512] [--replay-group-window-ms 50] [--upgrade-timeout-ms 10000] [--backlog 511] [--exit-with-parent] [--check-flags]",
  options: {},
  notes: "Every argument is passed to the bundled server, which checks its own flags; `serve --help` prints them.",
} satisfies CommandSpec;
