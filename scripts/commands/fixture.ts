// `catchup-bench fixture`: build a deterministic SQLite fixture; `fixture info PATH` prints its metadata.
// (Stub: the generator is being written; see issue 2.)
import type { CommandModule } from "yargs";

export const fixtureCommand: CommandModule = {
  command: "fixture",
  describe: "Build a deterministic SQLite fixture (projects with scripts, post-cursor update events)",
  handler: () => {
    throw new Error("not implemented yet");
  },
};
