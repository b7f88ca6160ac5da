// The starter config `init` writes (pure): two revisions of the server in this repository, built in
// clean checkouts and started with the harness's {port}; the commands are guesses to edit.
import { CONFIG_FILE } from "./config-file.js";

/** The schema's path as an installed package puts it (editors complete the keys from it). */
const SCHEMA_REF = "./node_modules/catchup-bench/catchup-bench.schema.json";

export interface StarterFacts {
  /** The baseline revision (a branch name). */
  baseline: string;
  /** package.json's scripts, to guess the build and start commands from. */
  scripts: Record<string, string>;
}

/** The config's text: JSON, two-space indented, ending in a newline. */
export function starterConfig(facts: StarterFacts): string {
  const build = facts.scripts.build ? "npm ci && npm run build" : "npm ci";
  const start = facts.scripts.start ? "npm start -- --port {port}" : "node server.js --port {port}";
  const config = {
    $schema: SCHEMA_REF,
    repo: ".",
    ref: [`baseline=${facts.baseline}`, "head=HEAD"],
    build,
    start,
    "start-timeout-ms": 60_000,
    cases: ["snapshot", "resume-none", "resume-one", "resume-many"],
    ceiling: 1.03,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** What `init` prints after writing: the file and what to check in it. */
export function starterNote(path: string): string[] {
  return [
    `wrote ${path}`,
    `check "start" (how your server takes its port: {port}), "build", and the subscription flags (subscribe-tag, token-file, cursor) for your server; docs/cli.md lists every key, and ${CONFIG_FILE}'s $schema lets an editor complete them`,
    "then: npx catchup-bench bench",
  ];
}
