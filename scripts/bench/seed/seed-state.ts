// One seed, step by step: prepare the empty state folder (the binding runs the server's own CLI),
// start the server on it, write the fixture's events through the binding, check the server's own
// snapshot against the fixture, stop the server. What is left in the folder is the template. Every
// call into the binding goes through callBinding (a deadline, Ctrl-C, "still waiting" lines), and
// what it returns is checked where it returns it.
import { setMaxListeners } from "node:events";
import { mkdirSync, rmSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { Binding, PrepareContext, SnapshotSummary } from "../../../bindings/binding.js";
import { subscribePayloadFor } from "../../driver/session-spec.js";
import { treeBytes } from "../../refs/disk.js";
import type { SeedRecord } from "../../results/schema.js";
import { BindingCallError, callBinding } from "../../seed/binding-call.js";
import { checkedSummary, preparedToken } from "../../seed/binding-results.js";
import { fixtureEvents, fixtureHolds, writtenEventCount } from "../../seed/fixture-events.js";
import type { LoadedBinding } from "../../seed/load-binding.js";
import { openSeedConnection, type SeedConnection } from "../../seed/rpc.js";
import { type StateEntry, sharedLink, stateEntries } from "../../seed/state-files.js";
import {
  AssignedSequences,
  eventAbout,
  type SeededSequences,
  type SeedSlot,
  seedSlots,
} from "../../seed/write-order.js";
import { runWindowed } from "../../seed/write-window.js";
import { TargetError } from "../../server-process/command.js";
import { spawnProcess } from "../../server-process/process.js";
import { escapeText } from "../../util/escape.js";
import type { FixtureRef } from "../fixtures/fixtures.js";
import { sourceOf } from "../fixtures/run-fixtures.js";
import { exitedWithin, targetOptions } from "../latency/latency.js";
import { seedProgress } from "../progress/seed-progress.js";
import type { BenchConfig, TargetSpec, TargetsConfig } from "../run/config.js";
import { startTarget, type Target } from "../trial/launch.js";

export interface SeedResult {
  /** The seeded state folder: every trial starts on a copy of it. */
  template: string;
  /** Its files as the seed left them: a kept template is checked against them before reuse. */
  files: StateEntry[];
  /** The token the binding's prepare issued, or null (the run's --token then). */
  token: string | null;
  sequences: SeededSequences;
  record: SeedRecord;
}

export interface SeedOptions {
  config: BenchConfig;
  launch: TargetsConfig;
  loaded: LoadedBinding;
  workDir: string;
  io: { log(line: string): void; signal: AbortSignal };
  stateDir: string;
}

/** One call into the binding, named for its messages: `call("write", fn, " of event 3 (…)")`. */
type Call = <T>(member: string, fn: () => T | Promise<T>, detail?: string) => Promise<T>;

/** "the server exited during the seed: target a exited (exit code 7); last stderr lines: …", or null while it runs. */
type ServerGone = () => Promise<string | null>;

export async function seedState(
  spec: Extract<TargetSpec, { kind: "command" }>,
  fixture: FixtureRef,
  o: SeedOptions,
): Promise<SeedResult> {
  const { binding } = o.loaded;
  const name = basename(sourceOf(fixture));
  const where = `seed: ${spec.name} on ${name}`;
  const fail = (why: string): never => {
    throw new TargetError(`${where}: ${why}`);
  };
  const { options, timeoutMs } = o.config.binding;
  const log = (line: string) => o.io.log(`seed: ${spec.name}: ${escapeText(line)}`);
  const call: Call = (member, fn, detail) =>
    callBinding(
      fn,
      { name: `the ${binding.name} binding's ${member}`, detail, where },
      { timeoutMs, signal: o.io.signal, log },
    );
  mkdirSync(o.stateDir, { recursive: true });
  const cwd = spec.cwd ?? process.cwd();
  const ctx = { stateDir: o.stateDir, cwd, options, run: runIn(cwd, o.io.signal, timeoutMs), log };
  const token = await prepare(binding, ctx, call, fail);
  const started = performance.now();
  const launch = { protocol: o.config.protocol, launch: o.launch, signal: o.io.signal };
  const target = await startTarget(spec, {
    ...targetOptions(launch, { db: o.stateDir, token }, false),
    warmUpSession: null,
  });
  let startStopMs = performance.now() - started;
  let answeringMs = 0;
  const window = binding.order === "strict" ? 1 : o.config.binding.window;
  // Each write in flight listens for a stop.
  setMaxListeners(window + 10, o.io.signal);
  const gone: ServerGone = async () =>
    (await exitedWithin(target, 1000)) ? `the server exited during the seed: ${target.describeExit()}` : null;
  let written: Written;
  let summary: SnapshotSummary;
  try {
    const conn = await openSeedConnection({
      url: target.url,
      token: target.token,
      headers: o.config.protocol.headers,
      timeoutMs: o.config.protocol.trialTimeoutMs,
    }).catch(async (e: unknown) => fail((await gone()) ?? (e as Error).message));
    // A stop closes the connection: a write waiting on its reply ends at once.
    const onAbort = () => conn.close();
    o.io.signal.addEventListener("abort", onAbort);
    try {
      const w = { conn, options, stateDir: o.stateDir, log, label: name, window, signal: o.io.signal, call, gone };
      written = await writeAll(binding, fixture, w, fail);
      summary = await readBack(binding, conn, o.config, { call, gone }, fail);
    } finally {
      o.io.signal.removeEventListener("abort", onAbort);
      answeringMs = conn.busyMs();
      conn.close();
    }
    const stopping = performance.now();
    await stopCleanly(target, o.launch.stopGraceMs, fail);
    startStopMs += performance.now() - stopping;
  } catch (e) {
    await target.stop();
    throw e;
  }
  const seedMs = performance.now() - started;
  checkAgainstFixture(summary, fixtureHolds(fixture.path), written.sequences.latest, fail);
  const files = templateFiles(o.stateDir, binding.exclude ?? [], fail);
  const record: SeedRecord = {
    fixture: name,
    binding: binding.name,
    bindingSha256: o.loaded.digest,
    events: written.events,
    seedMs,
    eventsPerSecond: written.events / (written.writeMs / 1000),
    window,
    startStopMs,
    answeringMs,
    harnessMs: Math.max(0, seedMs - startStopMs - answeringMs),
    templateBytes: treeBytes(o.stateDir),
    cursorSequence: written.sequences.cursor,
    latestSequence: written.sequences.latest,
    cached: false,
  };
  const s = (ms: number) => (ms / 1000).toFixed(1);
  log(
    `seeded ${name}: ${written.events} events in ${s(seedMs)} s (${Math.round(record.eventsPerSecond)}/s, ${window} in flight; server start+stop ${s(startStopMs)} s, answering ${s(answeringMs)} s, harness ${s(record.harnessMs ?? 0)} s); cursor ${record.cursorSequence}, latest ${record.latestSequence}`,
  );
  return { template: o.stateDir, files, token, sequences: written.sequences, record };
}

/** Runs the binding's prepare (when it has one) and returns the token it issued, checked. */
async function prepare(
  binding: Binding,
  ctx: PrepareContext,
  call: Call,
  fail: (why: string) => never,
): Promise<string | null> {
  const prepareFn = binding.prepare;
  if (!prepareFn) return null;
  const prepared = await call("prepare", () => prepareFn.call(binding, ctx)).catch((e: unknown) => {
    if (e instanceof BindingCallError) return fail(e.fromBinding ? `prepare failed: ${e.message}` : e.message);
    throw e; // a stop
  });
  const checked = preparedToken(prepared, `the ${binding.name} binding's prepare`);
  return "error" in checked ? fail(checked.error) : checked.token;
}

/**
 * The state folder as the template: what the binding excludes removed (only inside the folder), then
 * its files listed; a link that would let a trial's copy reach the template or beyond is refused.
 */
function templateFiles(stateDir: string, exclude: readonly string[], fail: (why: string) => never): StateEntry[] {
  for (const path of exclude) {
    const inside = resolve(stateDir, path);
    if (inside.startsWith(`${resolve(stateDir)}/`)) rmSync(inside, { recursive: true, force: true });
  }
  const files = stateEntries(stateDir);
  const shared = sharedLink(files);
  if (shared) fail(`the state folder's link ${shared}; keep the server's links relative and inside its state folder`);
  return files;
}

/**
 * `ctx.run` for prepare: a command (no shell) in the variant's folder, its output kept, stopped at its
 * timeout (default: --binding-timeout-ms; 0: none) or by a stop (Ctrl-C).
 */
function runIn(cwd: string, signal: AbortSignal, defaultMs: number): PrepareContext["run"] {
  return async (argv, opts = {}) => {
    if (signal.aborted) throw signal.reason;
    const out = { stdout: [] as string[], stderr: [] as string[] };
    const proc = spawnProcess({
      argv: [...argv],
      cwd,
      env: { ...process.env, ...opts.env },
      onLine: (line, stream) => out[stream].push(line),
    });
    proc.child.stdin?.end();
    const ms = opts.timeoutMs ?? defaultMs;
    let timedOut = false;
    const timer =
      ms > 0
        ? setTimeout(() => {
            timedOut = true;
            void proc.stop(2000);
          }, ms)
        : undefined;
    const onAbort = () => void proc.stop(2000);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const exit = await proc.exited;
      await proc.stop(2000);
      if (signal.aborted) throw signal.reason;
      if (timedOut) throw new Error(`${argv.join(" ")}: did not finish within ${ms} ms`);
      if (exit.signal) throw new Error(`${argv.join(" ")}: ended by ${exit.signal}`);
      return { code: exit.code, stdout: out.stdout.join("\n"), stderr: out.stderr.join("\n") };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  };
}

interface Written {
  events: number;
  writeMs: number;
  sequences: SeededSequences;
}

/**
 * Writes the binding's kinds of events, up to `window` in flight (seed/write-order.ts keeps the order
 * the fixture needs), mapping the fixture's cursors to the server's sequences.
 */
async function writeAll(
  binding: Binding,
  fixture: FixtureRef,
  w: {
    conn: SeedConnection;
    options: Readonly<Record<string, string>>;
    stateDir: string;
    log(l: string): void;
    label: string;
    window: number;
    signal: AbortSignal;
    call: Call;
    gone: ServerGone;
  },
  fail: (why: string) => never,
): Promise<Written> {
  const { meta } = fixture;
  const progress = seedProgress(w.label, writtenEventCount(fixture.path, binding.kinds), w.log);
  const strict = w.window === 1;
  const book = new AssignedSequences(meta, strict);
  const ctx = { rpc: w.conn, stateDir: w.stateDir, options: w.options, log: w.log };
  const t0 = performance.now();
  let events = 0;
  const writeOne = async (slot: SeedSlot): Promise<void> => {
    const about = eventAbout(slot.event);
    const after = book.begin(slot);
    const assigned = await w
      .call("write", () => binding.write(slot.event, ctx), ` of ${about}`)
      .catch(async (e: unknown) => {
        if (w.signal.aborted || !(e instanceof BindingCallError)) throw e; // a stop
        // A write that failed because the server died says so, with the server's exit and last words.
        return fail(`writing ${about}: ${(await w.gone()) ?? e.message}`);
      });
    const problem = book.end(slot, assigned, after, `the ${binding.name} binding's write`);
    if (problem) fail(`writing ${about}: ${problem}`);
    progress.update(++events);
  };
  try {
    await runWindowed(seedSlots(fixtureEvents(fixture.path), binding.kinds, meta, strict), w.window, writeOne);
  } finally {
    progress.stop();
  }
  return { events, writeMs: performance.now() - t0, sequences: book.sequences };
}

/** The server's own snapshot, through the run's subscription (as a snapshot case subscribes), read by the binding. */
async function readBack(
  binding: Binding,
  conn: SeedConnection,
  config: BenchConfig,
  c: { call: Call; gone: ServerGone },
  fail: (why: string) => never,
): Promise<SnapshotSummary> {
  const { protocol } = config;
  const items = await conn
    .snapshot(protocol.subscribeTag, subscribePayloadFor(protocol.subscribePayload, null), protocol.completion)
    .catch(async (e: unknown) => fail(`reading the snapshot back: ${(await c.gone()) ?? (e as Error).message}`));
  const got = await c
    .call("summarize", () => binding.summarize(items))
    .catch((e: unknown) => {
      if (!(e instanceof BindingCallError)) throw e;
      return fail(
        e.fromBinding ? `the binding could not read the snapshot (${items.length} items): ${e.message}` : e.message,
      );
    });
  const checked = checkedSummary(got, `the ${binding.name} binding's summarize`);
  return "error" in checked ? fail(checked.error) : checked.summary;
}

/** The first disagreement between the server's snapshot and the fixture, as the run's one line. */
export function checkAgainstFixture(
  got: SnapshotSummary,
  want: { projects: number; scriptBytes: number },
  latest: number,
  fail: (why: string) => never,
): void {
  if (got.projects !== want.projects)
    fail(`the server's snapshot holds ${got.projects} projects, the fixture ${want.projects}`);
  if (got.scriptBytes !== want.scriptBytes) {
    fail(`the server's snapshot holds ${got.scriptBytes} bytes of scripts, the fixture ${want.scriptBytes}`);
  }
  if (got.sequence !== latest)
    fail(`the server's snapshot is at sequence ${got.sequence}, its last write was ${latest}`);
}

/** Stops the seeded server; one that had died meanwhile means the state may be incomplete. */
async function stopCleanly(target: Target, graceMs: number, fail: (why: string) => never): Promise<void> {
  if (!target.alive()) fail(`the server exited during the seed (${target.describeExit()})`);
  await target.stop(graceMs);
}
