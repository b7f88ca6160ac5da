// `catchup-bench fixture`: build a deterministic SQLite fixture; `fixture info PATH` prints and
// validates its metadata. A thin layer over fixtures/generate.ts and fixtures/meta.ts, loaded once
// the flags are read.
import cliProgress from "cli-progress";
import type { Argv, CommandModule } from "yargs";
import { DiskFullError } from "../../common/disk-full.js";
import type { FixtureOptions } from "../../fixtures/generate.js";
import { defaultFixturePath, FixtureInputError, parseScriptBytes } from "../../fixtures/options.js";
import { FIXTURE_COMMAND, FIXTURE_INFO_COMMAND, FIXTURE_OPTIONS } from "../options/fixture.js";
import { readFlags } from "../options/spec.js";
import { applyOptions } from "../options/yargs.js";
import { EXIT } from "../util/exit-codes.js";
import { UsageError, writableDirFlag } from "../util/usage.js";

interface FixtureFlags {
  projects?: unknown;
  "script-bytes"?: unknown;
  "scripts-per-project"?: unknown;
  events?: unknown;
  threads?: unknown;
  "thread-events"?: unknown;
  seed?: unknown;
  out?: unknown;
  force?: unknown;
}

/** Turns raw flag values into generator options; throws UsageError naming the flag. */
export function fixtureOptionsFromFlags(flags: FixtureFlags): FixtureOptions {
  const f = readFlags(FIXTURE_OPTIONS, flags as Record<string, unknown>);
  let bytes: { min: number; max: number };
  try {
    bytes = parseScriptBytes(f["script-bytes"]);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const sizes = {
    projects: f.projects,
    scriptBytesMin: bytes.min,
    scriptBytesMax: bytes.max,
    scriptsPerProject: f["scripts-per-project"],
    events: f.events,
    threads: f.threads,
    threadEvents: f["thread-events"],
    seed: f.seed,
  };
  if (f.out !== undefined && f.out.trim() === "") {
    throw new UsageError(`--out must be one file path (got ${JSON.stringify(f.out)})`);
  }
  const out = f.out ?? defaultFixturePath(sizes);
  return { ...sizes, out, force: f.force };
}

/** "fixture [bar] 40% | 1240/3100 rows | ETA 3s"; "ETA n/a" while there is no rate to estimate from. */
export function fixtureBarFormat(
  options: cliProgress.Options,
  params: cliProgress.Params,
  payload: Record<string, unknown>,
): string {
  const known = params.value >= params.total || (Number.isFinite(params.eta) && params.eta > 0);
  const format = `fixture [{bar}] {percentage}% | {value}/{total} rows | ETA ${known ? "{eta}s" : "n/a"}`;
  return cliProgress.Format.Formatter({ ...options, format }, params, payload);
}

/** Builds the fixture, with a progress bar when stderr is a terminal; prints one JSON line. */
export async function runFixture(flags: FixtureFlags): Promise<void> {
  const options = fixtureOptionsFromFlags(flags);
  // An unwritable place for --out is a usage error up front (and avoids Node's recursive mkdir
  // spinning forever under /proc).
  writableDirFlag("out", options.out, "file");
  const { generateFixture } = await import("../../fixtures/generate.js");
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: fixtureBarFormat },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let started = false;
  try {
    const summary = generateFixture({
      ...options,
      onProgress: (done, total) => {
        if (!bar) return;
        // Starts at the first batch: a bar at 0 rows would show an ETA it cannot know yet.
        if (!started) bar.start(total, done);
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
        threads: m.threads,
        threadEvents: m.threadEvents,
        contentSha256: m.contentSha256,
        durationMs: Math.round(summary.durationMs),
      })}\n`,
    );
  } catch (error) {
    bar?.stop();
    if (error instanceof FixtureInputError) throw new UsageError(error.message);
    if (error instanceof DiskFullError) {
      // The temp file is gone and --out untouched: one line, and "could not produce it".
      process.stderr.write(`catchup-bench: fixture ${error.message}\n`);
      process.exitCode = EXIT.noResult;
      return;
    }
    throw error;
  }
}

/**
 * Prints a fixture's metadata as one JSON line after checking its rows against it (content_sha256,
 * row counts); a missing, non-SQLite, corrupt, edited or foreign file is a usage error.
 */
export async function runFixtureInfo(path: string): Promise<void> {
  const { FixtureError, readFixtureMeta } = await import("../../fixtures/meta.js");
  try {
    const meta = readFixtureMeta(path, { verify: true });
    process.stdout.write(`${JSON.stringify({ path, ...meta })}\n`);
  } catch (error) {
    if (error instanceof FixtureError) throw new UsageError(error.message);
    throw error;
  }
}

const fixtureInfoCommand: CommandModule<object, { path: string }> = {
  command: FIXTURE_INFO_COMMAND.command.replace(/^fixture /, ""),
  describe: FIXTURE_INFO_COMMAND.describe,
  builder: (y) => applyOptions(y, FIXTURE_INFO_COMMAND) as Argv<{ path: string }>,
  handler: (argv) => runFixtureInfo(argv.path),
};

export const fixtureCommand: CommandModule = {
  command: FIXTURE_COMMAND.command,
  describe: FIXTURE_COMMAND.describe,
  builder: (y) =>
    applyOptions(
      y
        .command(fixtureInfoCommand as CommandModule)
        .usage(
          "$0 fixture [options]\n$0 fixture info <path>\n\nWrites one SQLite file: projects with scripts (creation events before the cursor), then small update events after it. Prints one JSON line.",
        ),
      FIXTURE_COMMAND,
    )
      .example("$0 fixture --projects 1000 --script-bytes 8192 --events 1000 --out /tmp/f.sqlite", "")
      .example("$0 fixture info /tmp/f.sqlite", ""),
  handler: (argv) => runFixture(argv as FixtureFlags),
};
