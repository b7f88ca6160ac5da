// The starter config `init` writes (pure): two revisions of the server in this repository, built in
// clean checkouts and started with the harness's {port} (and {state}, with a binding). The start
// command comes from package.json's start script: when that script fixes a port or a store folder
// itself, the config runs its command with {port} and {state} in their place, never `npm start` with
// a second --port after the first.

import { UsageError } from "../util/usage.js";
import { CONFIG_FILE } from "./config-file.js";

/** The schema's path as an installed package puts it (editors complete the keys from it). */
const SCHEMA_REF = "./node_modules/catchup-bench/catchup-bench.schema.json";
/** Where `init --binding` writes the binding skeleton, and how the config names it. */
export const BINDING_FILE = "bench/binding.mjs";

export interface StarterFacts {
  /** The baseline revision (a branch name). */
  baseline: string;
  /** package.json's scripts, to guess the build and start commands from. */
  scripts: Record<string, string>;
  /** The lock file there is, which says how to install in a clean checkout. */
  lockfile?: "npm" | "pnpm" | "yarn" | null;
  /** `init --binding`: the config seeds the server with bench/binding.mjs. */
  binding?: boolean;
}

/** The start command and, when it is not package.json's start script as it is, what was changed and why. */
export interface StartPlan {
  start: string;
  note: string | null;
}

// A flag that fixes the port, and one that names a folder or file the server keeps its store in.
const PORT_RE = /(--port[= ]|(?:^|\s)-p\s+)(\d+)\b/;
const PORT_ENV_RE = /(^|\s)PORT=\d+\b/;
const STATE_RE =
  /(--(?:state|state-dir|data|data-dir|datadir|db|database|base-dir|basedir|dir|store|storage)[= ])("[^"]*"|'[^']*'|\S+)/;

/** Where a store named in a start script goes in the seeded state folder: a file in it, or the folder itself. */
function inState(value: string): string {
  const name =
    value
      .replace(/^["']|["']$/g, "")
      .split("/")
      .filter(Boolean)
      .at(-1) ?? "";
  return /\.[A-Za-z0-9]+$/.test(name) && !name.startsWith(".") ? `{state}/${name}` : "{state}";
}

/** The command a start script runs: its last `&&` step when it builds first; null when it is no one command. */
function serverCommand(script: string): string | null {
  const last = script.split("&&").at(-1)?.trim() ?? "";
  return last === "" || /[;|`<>]|\$\(|\|\|/.test(last) ? null : last;
}

/** How the config starts the server (see the module comment). */
export function startPlan(scripts: Record<string, string>, binding: boolean): StartPlan {
  const script = scripts.start;
  const stateFlag = binding ? " --data-dir {state}" : "";
  const guessState = binding && " (--data-dir is a guess: put {state} where your server takes its store folder)";
  if (script === undefined) {
    return {
      start: `node server.js --port {port}${stateFlag}`,
      note: `package.json has no start script: "start" is a guess, write how your server starts${guessState || ""}`,
    };
  }
  const port = PORT_RE.exec(script) ?? PORT_ENV_RE.exec(script);
  const state = STATE_RE.exec(script);
  if (!port && !state) {
    return {
      start: `npm start -- --port {port}${stateFlag}`,
      note: binding ? `"start" adds --port and --data-dir to npm start${guessState}` : null,
    };
  }
  const command = serverCommand(script);
  const fixed = [port ? `port ${port[2] ?? port[0].trim()}` : null, state ? `store ${state[2]}` : null]
    .filter(Boolean)
    .join(" and ");
  if (command === null) {
    return {
      start: `npm start -- --port {port}${stateFlag}`,
      note: `package.json's start script fixes its ${fixed} and is not one command (${JSON.stringify(script)}): write "start" as the command that starts the server, with {port}${binding ? " and {state}" : ""} in their place (npm start would repeat the flags)`,
    };
  }
  let start = command
    .replace(PORT_RE, (_m, flag: string) => `${flag}{port}`)
    .replace(PORT_ENV_RE, (_m, lead: string) => `${lead}PORT={port}`);
  if (!PORT_RE.test(command) && !PORT_ENV_RE.test(command)) start += " --port {port}";
  if (binding)
    start = state
      ? start.replace(STATE_RE, (_m, flag: string, value: string) => `${flag}${inState(value)}`)
      : `${start}${stateFlag}`;
  const why = binding
    ? "every trial gets a port and a copy of the seeded store of its own"
    : `every trial gets a port of its own${state ? `; the store ${state[2]} is then shared by every trial: seed a copy per trial with "binding" and {state}` : ""}`;
  return {
    start,
    note: `package.json's start script fixes its ${fixed} (${JSON.stringify(script)}): "start" runs its command with ${binding && state ? "{port} and {state}" : "{port}"} instead, so ${why}${binding && !state ? guessState : ""}`,
  };
}

/** The install (and build) command of a clean checkout. */
function buildCommand(facts: StarterFacts): string {
  const install = { npm: "npm ci", pnpm: "pnpm install --frozen-lockfile", yarn: "yarn install --frozen-lockfile" }[
    facts.lockfile ?? "npm"
  ];
  const installed = facts.lockfile === null ? "npm install" : install;
  return facts.scripts.build ? `${installed} && npm run build` : installed;
}

/** The config's text: JSON, two-space indented, ending in a newline. */
export function starterConfig(facts: StarterFacts): string {
  const config = {
    $schema: SCHEMA_REF,
    repo: ".",
    ref: [`baseline=${facts.baseline}`, "head=HEAD"],
    build: buildCommand(facts),
    start: startPlan(facts.scripts, facts.binding ?? false).start,
    ...(facts.binding ? { binding: `./${BINDING_FILE}` } : {}),
    "start-timeout-ms": 60_000,
    cases: ["snapshot", "resume-none", "resume-one", "resume-many"],
    ceiling: 1.03,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * `init --binding` on a config that exists: the same config naming the skeleton as its "binding" (put
 * after "start"), and "start" given {state} when it is still what init wrote; the lines to print.
 * Throws a UsageError when the file is no JSON object or already names another binding.
 */
export function withBinding(
  text: string,
  file: string,
  scripts: Record<string, string>,
): { text: string; note: string[] } {
  let config: unknown;
  try {
    config = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new UsageError(`${file} is not JSON (${(e as Error).message}): fix it, or give --force to replace it`);
  }
  if (typeof config !== "object" || config === null || Array.isArray(config))
    throw new UsageError(`${file} holds no JSON object: fix it, or give --force to replace it`);
  const entries = Object.entries(config);
  const binding = `./${BINDING_FILE}`;
  const named = (config as Record<string, unknown>).binding;
  if (named !== undefined && named !== binding)
    throw new UsageError(
      `${file} already names the binding ${JSON.stringify(named)}: edit it, or give --force to replace it`,
    );
  const start = (config as Record<string, unknown>).start;
  const starter = startPlan(scripts, false).start;
  const seeded = start === starter ? startPlan(scripts, true).start : start;
  const note = [`added "binding": "${binding}" to ${file}`];
  if (seeded !== start)
    note.push(`"start" is now ${JSON.stringify(seeded)}: {state} is each trial's copy of the seeded store`);
  else if (typeof start === "string" && !start.includes("{state}"))
    note.push(
      `put {state} in "start" where your server takes its store folder: each trial gets a copy of the seeded store`,
    );
  const out = entries.filter(([k]) => k !== "binding").map(([k, v]) => [k, k === "start" ? seeded : v] as const);
  const at = out.findIndex(([k]) => k === "start");
  out.splice(at < 0 ? out.length : at + 1, 0, ["binding", binding]);
  return { text: `${JSON.stringify(Object.fromEntries(out), null, 2)}\n`, note };
}

/** What `init` prints after writing: the files, what was read, and what to check in the config. */
export function starterNote(
  path: string,
  facts: StarterFacts & { why: string },
  written: { binding: string | null; ignore: string | null },
): string[] {
  const plan = startPlan(facts.scripts, facts.binding ?? false);
  return [
    `wrote ${path}${written.binding ? ` and ${written.binding}` : ""}`,
    ...(written.ignore ? [`wrote ${written.ignore}: run folders stay out of git status`] : []),
    `baseline: ${facts.baseline} (${facts.why}), compared with HEAD`,
    ...(plan.note ? [`start: ${plan.note}`] : []),
    `check in ${CONFIG_FILE} (docs/cli.md lists every key; its $schema lets an editor complete them):`,
    '  "start": {port} is the port the harness picks; {state} the seeded store folder, with "binding"; {db} a copy of the fixture (SQLite), for a server that reads its tables',
    facts.binding
      ? `  "binding": fill in ${written.binding ?? BINDING_FILE} (the steps are at its top; docs/bindings.md): it seeds your server from the fixture through its own API`
      : `  "binding": seeds your server from the fixture through its own API; \`catchup-bench init --binding\` writes a skeleton (${BINDING_FILE}) to fill in (docs/bindings.md)`,
    '  the subscription: "subscribe-tag", "subscribe-payload" ({after} for the cursor), "url-path" (the WebSocket path, default /ws), "completion" (FIELD=VALUE of the item that ends the catch-up, or exit), "probe-tag"',
    '  "token-file" when your server needs a token and "binding" does not issue one',
    "then: npx catchup-bench bench --quick to try the set-up (one trial each: the guard gives no verdict, exit 3), and npx catchup-bench bench for the comparison",
  ];
}
