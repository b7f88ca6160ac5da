// Entry point of the bundled server-under-test: `node dist/server-under-test/main.js --db FIXTURE ...`.
// Prints one ready line on stdout; logs on stderr; bad flags or fixture: one-line error, exit 2.
import { fstatSync } from "node:fs";
import { constants } from "node:os";
import { FixtureError, openFixture, readFixtureMetaFrom } from "../fixtures/meta.js";
import { HELP, parseSettings, type ServerSettings, SettingsError, USAGE } from "./settings.js";
import { EventStore } from "./store.js";

/** If teardown hangs after a signal, give up after this long rather than linger. */
const SHUTDOWN_TIMEOUT_MS = 8000;

function fail(message: string): never {
  process.stderr.write(`server-under-test: ${message}\n`);
  process.exit(2);
}

function openStore(settings: ServerSettings): EventStore {
  try {
    const db = openFixture(settings.db);
    return new EventStore(db, readFixtureMetaFrom(db, settings.db));
  } catch (e) {
    if (e instanceof FixtureError) fail(e.message);
    fail(`fixture ${settings.db}: ${(e as Error).message}`);
  }
}

/** Turns "the parent went away" (stdin EOF or IPC disconnect) into the normal SIGTERM shutdown. */
function exitWithParent(): void {
  let gone = false;
  const goodbye = () => {
    // once: a second SIGTERM would find no handler left and kill the process outright
    if (gone) return;
    gone = true;
    process.kill(process.pid, "SIGTERM");
  };
  // Only a pipe or socket from the parent is a lifeline: a stdin of /dev/null (clinic's heapprofiler
  // starts the server so) ends at once, which would stop the server while it starts.
  let lifeline = false;
  try {
    const stdin = fstatSync(0);
    lifeline = stdin.isFIFO() || stdin.isSocket();
  } catch {
    lifeline = false; // no stdin at all
  }
  if (lifeline) {
    process.stdin.on("end", goodbye).on("close", goodbye).on("error", goodbye).resume();
  }
  if (process.send !== undefined) process.on("disconnect", goodbye);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`usage: ${USAGE}\n${HELP}`);
    return;
  }
  let settings: ServerSettings;
  try {
    settings = parseSettings(argv);
  } catch (e) {
    if (e instanceof SettingsError) fail(e.message);
    throw e;
  }
  if (settings.checkFlags) return;
  // Until the Effect runtime is up (its imports take a second or more) nothing else would act on a
  // signal: there is nothing to close but the store, so stop at once, before anything listens.
  let launched = false;
  let store: EventStore | null = null;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      if (!launched) {
        process.stderr.write(`server-under-test: ${signal} while starting: exiting before listening\n`);
        store?.close();
        process.exit(128 + (constants.signals[signal] ?? 0));
      }
      process.stderr.write(`server-under-test: ${signal}: closing sockets and exiting\n`);
      setTimeout(() => {
        process.stderr.write(`server-under-test: shutdown took over ${SHUTDOWN_TIMEOUT_MS} ms; exiting\n`);
        process.exit(1);
      }, SHUTDOWN_TIMEOUT_MS).unref();
    });
  }
  const opened = openStore(settings);
  store = opened;
  if (settings.exitWithParent) exitWithParent();
  const onListening = (url: string) => {
    const ready = {
      event: "listening",
      url,
      pid: process.pid,
      delivery: settings.delivery,
      itemShape: settings.itemShape,
      fixture: opened.meta,
    };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
    const tokens = settings.tokens.length === 0 ? "dev token only" : `${settings.tokens.length} token(s)`;
    process.stderr.write(
      `server-under-test: listening on ${url}, delivery ${settings.delivery}, items ${settings.itemShape}, ${tokens}\n`,
    );
  };
  // Loaded after the flags and fixture check out, so bad input fails fast.
  const [NodeRuntime, Layer, Effect, Cause, { serverLayer }] = await Promise.all([
    import("@effect/platform-node/NodeRuntime"),
    import("effect/Layer"),
    import("effect/Effect"),
    import("effect/Cause"),
    import("./server.js"),
  ]);
  // Bundled, those imports run as one synchronous step: a signal that came meanwhile reaches its
  // handler in the event loop's poll phase, so pass through one (a timer, then the check phase after
  // that loop's poll) while the start-up handler still applies.
  await new Promise((resolve) => setTimeout(() => setImmediate(resolve), 0));
  // From here the runtime's own signal handling interrupts the server (runMain installs it synchronously).
  launched = true;
  Layer.launch(serverLayer(settings, opened, onListening)).pipe(
    // A failure to serve (e.g. the port is taken) is one line on stderr and exit 1.
    Effect.tapErrorCause((cause) =>
      Effect.sync(() => {
        if (Cause.isInterruptedOnly(cause)) return; // a signal: the normal way out
        const error = Cause.squash(cause) as { message?: string; cause?: { message?: string } };
        const why = error?.cause?.message ?? error?.message ?? String(error);
        process.stderr.write(`server-under-test: cannot serve on ${settings.host}:${settings.port}: ${why}\n`);
      }),
    ),
    NodeRuntime.runMain({ disableErrorReporting: true }),
  );
}

await main();
