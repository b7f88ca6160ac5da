// One seed, step by step: prepare the empty state folder (the binding runs the server's own CLI),
// start the server on it, write the fixture's events through the binding, check the server's own
// snapshot against the fixture, stop the server. What is left in the folder is the template.
import { mkdirSync, rmSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { Binding, FixtureEvent, PrepareContext, SnapshotSummary } from "../../bindings/binding.js";
import { subscribePayloadFor } from "../driver/session-spec.js";
import { treeBytes } from "../refs/disk.js";
import type { SeedRecord } from "../results/schema.js";
import { fixtureEvents, fixtureHolds, writtenEventCount } from "../seed/fixture-events.js";
import type { LoadedBinding } from "../seed/load-binding.js";
import { openSeedConnection, type SeedConnection } from "../seed/rpc.js";
import { TargetError } from "../target/command.js";
import { spawnProcess } from "../target/process.js";
import { escapeText } from "../util/escape.js";
import type { BenchConfig, TargetSpec, TargetsConfig } from "./config.js";
import type { FixtureRef } from "./fixtures.js";
import { targetOptions } from "./latency.js";
import { startTarget, type Target } from "./launch.js";
import { sourceOf } from "./run-fixtures.js";
import { seedProgress } from "./seed-progress.js";

/** The sequences the server assigned, in place of the fixture's. */
export interface SeededSequences {
  cursor: number;
  latest: number;
  threadCursor: number;
  threadLatest: number;
}

export interface SeedResult {
  /** The seeded state folder: every trial starts on a copy of it. */
  template: string;
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

/** A prepare command that has not finished by then is stopped, ms. */
const PREPARE_TIMEOUT_MS = 120_000;

export async function seedState(
  spec: Extract<TargetSpec, { kind: "command" }>,
  fixture: FixtureRef,
  o: SeedOptions,
): Promise<SeedResult> {
  const { binding } = o.loaded;
  const name = basename(sourceOf(fixture));
  const fail = (why: string): never => {
    throw new TargetError(`seed: ${spec.name} on ${name}: ${why}`);
  };
  const options = o.config.binding.options;
  const cwd = spec.cwd ?? process.cwd();
  const log = (line: string) => o.io.log(`seed: ${spec.name}: ${escapeText(line)}`);
  mkdirSync(o.stateDir, { recursive: true });
  const prepared = binding.prepare
    ? await binding
        .prepare({ stateDir: o.stateDir, cwd, options, run: runIn(cwd), log })
        .catch((e: unknown) => fail(`prepare failed: ${(e as Error).message}`))
    : undefined;
  const token = prepared?.token ?? null;
  const started = performance.now();
  const launch = { protocol: o.config.protocol, launch: o.launch, signal: o.io.signal };
  const target = await startTarget(spec, {
    ...targetOptions(launch, { db: o.stateDir, token }, false),
    warmUpSession: null,
  });
  let written: Written;
  let summary: SnapshotSummary;
  try {
    const conn = await openSeedConnection({
      url: target.url,
      token: target.token,
      headers: o.config.protocol.headers,
      timeoutMs: o.config.protocol.trialTimeoutMs,
    }).catch((e: unknown) => fail((e as Error).message));
    // A stop closes the connection: a write waiting on its reply ends at once.
    const onAbort = () => conn.close();
    o.io.signal.addEventListener("abort", onAbort);
    try {
      written = await writeAll(
        binding,
        fixture,
        { conn, options, stateDir: o.stateDir, log, label: name, signal: o.io.signal },
        fail,
      );
      summary = await readBack(binding, conn, o.config, fail);
    } finally {
      o.io.signal.removeEventListener("abort", onAbort);
      conn.close();
    }
    await stopCleanly(target, o.launch.stopGraceMs, fail);
  } catch (e) {
    await target.stop();
    throw e;
  }
  const seedMs = performance.now() - started;
  checkAgainstFixture(summary, fixtureHolds(fixture.path), written.sequences.latest, fail);
  for (const path of binding.exclude ?? []) {
    const inside = resolve(o.stateDir, path);
    // Only what lies inside the state folder is left out of it.
    if (inside.startsWith(`${resolve(o.stateDir)}/`)) rmSync(inside, { recursive: true, force: true });
  }
  const record: SeedRecord = {
    fixture: name,
    binding: binding.name,
    bindingSha256: o.loaded.digest,
    events: written.events,
    seedMs,
    eventsPerSecond: written.events / (written.writeMs / 1000),
    templateBytes: treeBytes(o.stateDir),
    cursorSequence: written.sequences.cursor,
    latestSequence: written.sequences.latest,
    cached: false,
  };
  log(
    `seeded ${name}: ${written.events} events in ${(seedMs / 1000).toFixed(1)} s (${Math.round(record.eventsPerSecond)}/s); cursor ${record.cursorSequence}, latest ${record.latestSequence}`,
  );
  return { template: o.stateDir, token, sequences: written.sequences, record };
}

/** `ctx.run` for prepare: a command (no shell) in the variant's folder, its output kept, with a timeout. */
function runIn(cwd: string): PrepareContext["run"] {
  return async (argv, opts = {}) => {
    const out = { stdout: [] as string[], stderr: [] as string[] };
    const proc = spawnProcess({
      argv: [...argv],
      cwd,
      env: { ...process.env, ...opts.env },
      onLine: (line, stream) => out[stream].push(line),
    });
    proc.child.stdin?.end();
    const ms = opts.timeoutMs ?? PREPARE_TIMEOUT_MS;
    const timer = setTimeout(() => void proc.stop(2000), ms);
    const exit = await proc.exited;
    clearTimeout(timer);
    await proc.stop(2000);
    if (exit.signal)
      throw new Error(
        `${argv.join(" ")}: ended by ${exit.signal}${exit.signal === "SIGTERM" ? ` (timeout ${ms} ms?)` : ""}`,
      );
    return { code: exit.code, stdout: out.stdout.join("\n"), stderr: out.stderr.join("\n") };
  };
}

interface Written {
  events: number;
  writeMs: number;
  sequences: SeededSequences;
}

/** Writes the binding's kinds of events in fixture order, mapping the fixture's cursors to the server's sequences. */
async function writeAll(
  binding: Binding,
  fixture: FixtureRef,
  w: {
    conn: SeedConnection;
    options: Readonly<Record<string, string>>;
    stateDir: string;
    log(l: string): void;
    label: string;
    signal: AbortSignal;
  },
  fail: (why: string) => never,
): Promise<Written> {
  const { meta } = fixture;
  const total = writtenEventCount(fixture.path, binding.kinds);
  const progress = seedProgress(w.label, total, w.log);
  const seq = { cursor: 0, latest: 0, threadCursor: 0, threadLatest: 0 };
  const ctx = { rpc: w.conn, stateDir: w.stateDir, options: w.options, log: w.log };
  const t0 = performance.now();
  let events = 0;
  let last = 0;
  // A stop ends the wait at once, whatever the binding is waiting on (one listener for the whole seed).
  const stopped = rejectOnAbort(w.signal);
  stopped.catch(() => undefined);
  try {
    for (const event of fixtureEvents(fixture.path)) {
      if (w.signal.aborted) throw w.signal.reason;
      if (!binding.kinds.includes(event.aggregateKind)) continue;
      const assigned = await Promise.race([binding.write(event, ctx), stopped]).catch((e: unknown) => {
        if (w.signal.aborted) throw w.signal.reason;
        return fail(`writing event ${event.sequence} (${event.type}): ${(e as Error).message}`);
      });
      if (!Number.isSafeInteger(assigned) || assigned <= last) {
        fail(
          `writing event ${event.sequence} (${event.type}): the binding returned sequence ${String(assigned)}, not above ${last}`,
        );
      }
      last = assigned;
      mapCursors(seq, event, assigned, meta);
      progress.update(++events);
    }
  } finally {
    progress.stop();
  }
  return { events, writeMs: performance.now() - t0, sequences: seq };
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
}

function mapCursors(seq: SeededSequences, event: FixtureEvent, assigned: number, meta: FixtureRef["meta"]): void {
  if (event.sequence <= meta.cursorSequence) seq.cursor = assigned;
  seq.latest = assigned;
  if (event.aggregateKind === "thread" && event.streamId === meta.threadId) {
    if (event.sequence <= meta.threadCursorSequence) seq.threadCursor = assigned;
    seq.threadLatest = assigned;
  }
}

/** The server's own snapshot, through the run's subscription (as a snapshot case subscribes), read by the binding. */
async function readBack(
  binding: Binding,
  conn: SeedConnection,
  config: BenchConfig,
  fail: (why: string) => never,
): Promise<SnapshotSummary> {
  const { protocol } = config;
  const items = await conn
    .snapshot(protocol.subscribeTag, subscribePayloadFor(protocol.subscribePayload, null), protocol.completion)
    .catch((e: unknown) => fail(`reading the snapshot back: ${(e as Error).message}`));
  try {
    return binding.summarize(items);
  } catch (e) {
    return fail(`the binding could not read the snapshot (${items.length} items): ${(e as Error).message}`);
  }
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
