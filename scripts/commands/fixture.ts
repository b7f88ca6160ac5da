// `catchup-bench fixture`: build a deterministic SQLite fixture; `fixture info PATH` prints and
// validates its metadata. A thin layer over fixtures/generate.ts and fixtures/meta.ts.
import cliProgress from "cli-progress";
import type { Argv, CommandModule } from "yargs";
import { FixtureInputError, type FixtureOptions, generateFixture } from "../../fixtures/generate.js";
import { FixtureError, readFixtureMeta } from "../../fixtures/meta.js";
import { defaultFixturePath, FIXTURE_LIMITS, parseScriptBytes } from "../../fixtures/options.js";
import { intFlag, UsageError, writableDirFlag } from "../usage.js";

interface FixtureFlags {
  projects?: unknown;
  "script-bytes"?: unknown;
  "scripts-per-project"?: unknown;
  events?: unknown;
  seed?: unknown;
  out?: unknown;
  force?: unknown;
}

/** Turns raw flag values into generator options; throws UsageError naming the flag. */
export function fixtureOptionsFromFlags(flags: FixtureFlags): FixtureOptions {
  const L = FIXTURE_LIMITS;
  const projects = intFlag("projects", flags.projects ?? L.projects.default, L.projects.min, L.projects.max);
  let bytes: { min: number; max: number };
  try {
    bytes = parseScriptBytes(flags["script-bytes"] ?? L.scriptBytes.default);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const scriptsPerProject = intFlag(
    "scripts-per-project",
    flags["scripts-per-project"] ?? L.scriptsPerProject.default,
    L.scriptsPerProject.min,
    L.scriptsPerProject.max,
  );
  const events = intFlag("events", flags.events ?? L.events.default, L.events.min, L.events.max);
  const seed = intFlag("seed", flags.seed ?? L.seed.default, L.seed.min, L.seed.max);
  const sizes = { projects, scriptBytesMin: bytes.min, scriptBytesMax: bytes.max, scriptsPerProject, events, seed };
  if (flags.out !== undefined && (typeof flags.out !== "string" || flags.out.trim() === "")) {
    throw new UsageError(`--out must be one file path (got ${JSON.stringify(flags.out)})`);
  }
  const out = (flags.out as string | undefined) ?? defaultFixturePath(sizes);
  return { ...sizes, out, force: flags.force === true };
}

/** Builds the fixture, with a progress bar when stderr is a terminal; prints one JSON line. */
export function runFixture(flags: FixtureFlags): void {
  const options = fixtureOptionsFromFlags(flags);
  // An unwritable place for --out is a usage error up front (and avoids Node's recursive mkdir
  // spinning forever under /proc).
  writableDirFlag("out", options.out, "file");
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: "fixture [{bar}] {percentage}% | {value}/{total} rows | ETA {eta}s" },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let started = false;
  try {
    const summary = generateFixture({
      ...options,
      onProgress: (done, total) => {
        if (!bar) return;
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
    });
    bar?.stop();
    const m = summary.meta;
    process.stdout.write(
      `${JSON.stringify({
        path: summary.path,
        bytes: summary.bytes,
        projects: m.projectCount,
        eventCount: m.eventCount,
        postCursorEvents: m.latestSequence - m.cursorSequence,
        cursorSequence: m.cursorSequence,
        latestSequence: m.latestSequence,
        postCursorPayloadBytes: m.postCursorPayloadBytes,
        contentSha256: m.contentSha256,
        durationMs: Math.round(summary.durationMs),
      })}\n`,
    );
  } catch (error) {
    bar?.stop();
    if (error instanceof FixtureInputError) throw new UsageError(error.message);
    throw error;
  }
}

/** Prints a fixture's metadata as one JSON line; a missing, non-SQLite or foreign file is a usage error. */
export function runFixtureInfo(path: string): void {
  try {
    const meta = readFixtureMeta(path);
    process.stdout.write(`${JSON.stringify({ path, ...meta })}\n`);
  } catch (error) {
    if (error instanceof FixtureError) throw new UsageError(error.message);
    throw error;
  }
}

const fixtureInfoCommand: CommandModule<object, { path: string }> = {
  command: "info <path>",
  describe: "Print a fixture's metadata (JSON) after checking it is a fixture of this schema version",
  builder: (y) =>
    y.positional("path", { type: "string", demandOption: true, describe: "fixture file" }) as Argv<{ path: string }>,
  handler: (argv) => runFixtureInfo(argv.path),
};

export const fixtureCommand: CommandModule = {
  command: "fixture",
  describe: "Build a deterministic SQLite fixture (projects with scripts, post-cursor update events)",
  builder: (y) => {
    const L = FIXTURE_LIMITS;
    return y
      .command(fixtureInfoCommand as CommandModule)
      .usage(
        "$0 fixture [options]\n$0 fixture info <path>\n\nWrites one SQLite file: projects with scripts (creation events before the cursor), then small update events after it. Prints one JSON line.",
      )
      .option("projects", {
        type: "string",
        global: false,
        default: L.projects.default,
        describe: `Number of projects (${L.projects.min}..${L.projects.max})`,
      })
      .option("script-bytes", {
        type: "string",
        global: false,
        default: L.scriptBytes.default,
        describe: `Exact UTF-8 bytes of each script command: B or a range MIN-MAX (each ${L.scriptBytes.min}..${L.scriptBytes.max})`,
      })
      .option("scripts-per-project", {
        type: "string",
        global: false,
        default: L.scriptsPerProject.default,
        describe: `Scripts per project (${L.scriptsPerProject.min}..${L.scriptsPerProject.max})`,
      })
      .option("events", {
        type: "string",
        global: false,
        default: L.events.default,
        describe: `Update events after the cursor, round-robin over projects (${L.events.min}..${L.events.max})`,
      })
      .option("seed", {
        type: "string",
        global: false,
        default: L.seed.default,
        describe: `PRNG seed (${L.seed.min}..${L.seed.max}); same flags and seed give the same content_sha256`,
      })
      .option("out", {
        type: "string",
        global: false,
        describe: "Output file [default: fixtures/data/p{projects}-s{bytes}-e{events}.sqlite]",
      })
      .option("force", { type: "boolean", global: false, default: false, describe: "Overwrite --out if it exists" })
      .example("$0 fixture --projects 1000 --script-bytes 8192 --events 1000 --out /tmp/f.sqlite", "")
      .example("$0 fixture info /tmp/f.sqlite", "");
  },
  handler: (argv) => runFixture(argv as FixtureFlags),
};
