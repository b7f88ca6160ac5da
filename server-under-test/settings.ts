// Command-line flags of the bundled server, parsed with yargs and validated into ServerSettings.
// Bad input throws SettingsError with a one-line message naming the flag and the allowed values.
import { isIP } from "node:net";
import yargs from "yargs";
import { DEV_TOKEN, parseToken, type TokenGrant } from "./auth.js";
import { ITEM_SHAPES, type ItemShape } from "./catchup.js";
import { DELIVERY_STRATEGIES, type DeliveryStrategy } from "./delivery.js";
import { REFERENCE_GROUP_WINDOW } from "./grouping.js";
import { SCOPES } from "./rpcs.js";

export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

export interface ServerSettings {
  db: string;
  host: string;
  port: number;
  delivery: DeliveryStrategy;
  itemShape: ItemShape;
  tokens: TokenGrant[];
  maxReplayEvents: number;
  maxReplayBytes: number;
  maxInitialChunkBytes: number | undefined;
  maxProjectedBytes: number | undefined;
  /** A streamed (legacy) replay goes out in groups of at most this many items... */
  replayGroupItems: number;
  /** ...or of what arrived within this many ms of the client's pull. */
  replayGroupWindowMs: number;
  /** A connection must finish its HTTP request headers (the upgrade) within this many ms. */
  upgradeTimeoutMs: number;
  /** listen()'s backlog: connects the kernel queues before the server accepts them (capped by somaxconn). */
  backlog: number;
  exitWithParent: boolean;
  /** Check the flags and exit 0 without opening the fixture (the harness vets --server-arg this way). */
  checkFlags: boolean;
}

export const DEFAULT_UPGRADE_TIMEOUT_MS = 10_000;

/** Node's own default listen backlog, which the reference server runs with. */
export const DEFAULT_BACKLOG = 511;

export const USAGE =
  "node dist/server-under-test/main.js --db FIXTURE [--host 127.0.0.1] [--port 0] [--delivery legacy|batched] [--item-shape reference|lean] " +
  "[--token SECRET[:scope,scope]]... [--token-env NAME]... [--max-replay-events 1000] [--max-replay-bytes 8388608] " +
  "[--max-initial-chunk-bytes N] [--max-projected-bytes N] [--replay-group-items 512] [--replay-group-window-ms 50] " +
  "[--upgrade-timeout-ms 10000] [--backlog 511] [--exit-with-parent] [--check-flags]";

export const HELP = `
  --db FIXTURE                   SQLite fixture (npm run fixture); opened read-only, never modified
  --host HOST                    address to bind (default 127.0.0.1)
  --port N                       port; 0 picks a free one (default 0); the ready line gives the URL
  --delivery legacy|batched      how catch-up is cut into chunks (default legacy)
  --item-shape reference|lean    catch-up items as the reference server shapes them (default): a
                                 snapshot plus a same-sequence enrichment item, a resume opening
                                 with a metadata snapshot of every project; or lean: one snapshot
                                 item, a small resume item (scripts cross the wire once)
  --token SECRET[:scope,...]     accepted token, repeatable; scopes orchestration:read,
                                 orchestration:operate (default both). Without --token the dev
                                 token "${DEV_TOKEN}" is accepted with both scopes
  --token-env NAME               accepted token read from the environment variable NAME (same
                                 SECRET[:scope,...] form), repeatable: keeps the secret off the
                                 command line, where ps shows it to every user
  --max-replay-events N          replay at most N events, else a snapshot (default 1000)
  --max-replay-bytes N           replay at most N stored payload bytes, else a snapshot (default 8388608)
  --max-initial-chunk-bytes N    batched: split the first chunk into frames of at most N bytes (default off);
                                 a snapshot is then paged into several snapshot items (page, pages)
  --max-projected-bytes N        batched: a marked resume whose replay is projected (from stored sizes)
                                 to encode beyond N bytes takes the streaming path instead: resume
                                 metadata, then the replay in groups (below), then the marker
                                 (default off)
  --replay-group-items N         a streamed replay (legacy, and the fallback above) goes out in
                                 chunks of at most N items (default 512, as the reference server)
  --replay-group-window-ms N     ...or of the items read within N ms of the client's pull, if any
                                 (default 50, as the reference server); the replay's event log is
                                 read in pages of 500, each only when the next chunk is pulled,
                                 which is after the previous chunk's ACK
  --upgrade-timeout-ms N         close a connection whose HTTP upgrade headers are not complete
                                 within N ms (default 10000); open WebSockets are not affected
  --backlog N                    listen backlog, 1-65535 (default 511, Node's); the kernel caps it
                                 at net.core.somaxconn. A storm that connects more clients at once
                                 than the backlog overflows the accept queue
  --exit-with-parent             exit when stdin reaches EOF or the IPC channel disconnects
  --check-flags                  check the flags and exit (0, or 2 with the error) without opening
                                 the fixture
`;

/** The value each flag takes, for the "needs a value" message. */
const VALUE_FORMS: Record<string, string> = {
  db: "FIXTURE",
  host: "HOST",
  port: "an integer from 0 to 65535",
  delivery: "legacy|batched",
  "item-shape": "reference|lean",
  token: "SECRET[:scope,scope]",
  "token-env": "NAME",
  "max-replay-events": "N",
  "max-replay-bytes": "N",
  "max-initial-chunk-bytes": "N",
  "max-projected-bytes": "N",
  "replay-group-items": "N",
  "replay-group-window-ms": "N",
  "upgrade-timeout-ms": "N",
  backlog: "N",
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** yargs says "Not enough arguments following: token" for `--token` with no value; name the form. */
function missingValue(message: string): string | undefined {
  const match = /^Not enough arguments following: (\S+)$/.exec(message);
  if (match?.[1] === undefined) return undefined;
  const flag = kebab(match[1]);
  return `--${flag} needs a value: --${flag} ${VALUE_FORMS[flag] ?? "VALUE"}`;
}

/** An IP literal, or a name made of RFC 1123 labels: anything else could only fail at listen(). */
function isHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
  return (
    host.length <= 253 &&
    host
      .replace(/\.$/, "")
      .split(".")
      .every((l) => label.test(l))
  );
}

function int(flag: string, value: unknown, min: number, max: number): number {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new SettingsError(`--${flag} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
  }
  return n;
}

/** The flags as yargs reads them (names and arity checked; values still strings); throws SettingsError. */
function readArgv(argv: string[]) {
  let failure: string | undefined;
  const args = yargs(argv)
    .scriptName("server-under-test")
    .usage(USAGE)
    .strict()
    .help(false)
    .version(false)
    .exitProcess(false)
    .fail((msg, err) => {
      failure = msg ?? err?.message ?? "invalid arguments";
    })
    // requiresArg: a value flag at the end of argv or followed by another flag is an error, not "" or the default
    .option("db", { requiresArg: true, type: "string", describe: "fixture file (opened read-only)" })
    .option("host", { requiresArg: true, type: "string", default: "127.0.0.1" })
    .option("port", { requiresArg: true, type: "string", default: "0" })
    .option("delivery", { requiresArg: true, type: "string", default: "legacy" })
    .option("item-shape", { requiresArg: true, type: "string", default: "reference" })
    .option("token", { requiresArg: true, type: "string", array: true, describe: "SECRET[:scope,scope], repeatable" })
    .option("token-env", { requiresArg: true, type: "string", array: true, describe: "NAME, repeatable" })
    .option("max-replay-events", { requiresArg: true, type: "string", default: "1000" })
    .option("max-replay-bytes", { requiresArg: true, type: "string", default: "8388608" })
    .option("max-initial-chunk-bytes", { requiresArg: true, type: "string" })
    .option("max-projected-bytes", { requiresArg: true, type: "string" })
    .option("replay-group-items", {
      requiresArg: true,
      type: "string",
      default: String(REFERENCE_GROUP_WINDOW.maxItems),
    })
    .option("replay-group-window-ms", {
      requiresArg: true,
      type: "string",
      default: String(REFERENCE_GROUP_WINDOW.windowMs),
    })
    .option("upgrade-timeout-ms", { requiresArg: true, type: "string", default: String(DEFAULT_UPGRADE_TIMEOUT_MS) })
    .option("backlog", { requiresArg: true, type: "string", default: String(DEFAULT_BACKLOG) })
    .option("exit-with-parent", { type: "boolean", default: false })
    .option("check-flags", { type: "boolean", default: false })
    .parseSync();
  if (failure !== undefined) throw new SettingsError(missingValue(failure) ?? `${failure}; usage: ${USAGE}`);
  return args;
}

/** --token grants, then --token-env's (read from env). */
function tokenGrants(specs: readonly unknown[], envNames: readonly unknown[], env: NodeJS.ProcessEnv): TokenGrant[] {
  const tokens: TokenGrant[] = [];
  for (const spec of specs) {
    try {
      tokens.push(parseToken(String(spec)));
    } catch (e) {
      throw new SettingsError((e as Error).message);
    }
  }
  for (const name of envNames) {
    const spec = env[String(name)];
    // The value is never quoted back: it is a secret.
    if (!spec) throw new SettingsError(`--token-env ${name}: the environment variable ${name} is not set or empty`);
    try {
      tokens.push(parseToken(spec));
    } catch {
      throw new SettingsError(
        `--token-env ${name}: its value must be SECRET[:scope,scope] with a non-empty SECRET and scopes from ${SCOPES.join(", ")}`,
      );
    }
  }
  return tokens;
}

/** Parses argv (without node and script; --token-env reads env); throws SettingsError on bad input. */
export function parseSettings(argv: string[], env: NodeJS.ProcessEnv = process.env): ServerSettings {
  const args = readArgv(argv);
  if (typeof args.db !== "string" || args.db === "")
    throw new SettingsError(`--db FIXTURE is required; usage: ${USAGE}`);
  if (args.host === "") throw new SettingsError(`--host needs a value: --host HOST (e.g. 127.0.0.1)`);
  if (!isHost(args.host)) {
    throw new SettingsError(
      `--host must be an IP address or a host name (letters, digits, "-" and "." only; got ${JSON.stringify(args.host)})`,
    );
  }
  const delivery = args.delivery;
  if (!(DELIVERY_STRATEGIES as readonly string[]).includes(delivery)) {
    throw new SettingsError(
      `--delivery must be one of ${DELIVERY_STRATEGIES.join(", ")} (got ${JSON.stringify(delivery)})`,
    );
  }
  const itemShape = args["item-shape"];
  if (!(ITEM_SHAPES as readonly string[]).includes(itemShape)) {
    throw new SettingsError(`--item-shape must be one of ${ITEM_SHAPES.join(", ")} (got ${JSON.stringify(itemShape)})`);
  }
  const tokens = tokenGrants(args.token ?? [], args["token-env"] ?? [], env);
  const initial = args["max-initial-chunk-bytes"];
  const projected = args["max-projected-bytes"];
  return {
    db: args.db,
    host: args.host,
    port: int("port", args.port, 0, 65535),
    delivery: delivery as DeliveryStrategy,
    itemShape: itemShape as ItemShape,
    tokens,
    maxReplayEvents: int("max-replay-events", args["max-replay-events"], 0, Number.MAX_SAFE_INTEGER),
    maxReplayBytes: int("max-replay-bytes", args["max-replay-bytes"], 0, Number.MAX_SAFE_INTEGER),
    maxInitialChunkBytes:
      initial === undefined ? undefined : int("max-initial-chunk-bytes", initial, 1, Number.MAX_SAFE_INTEGER),
    maxProjectedBytes:
      projected === undefined ? undefined : int("max-projected-bytes", projected, 0, Number.MAX_SAFE_INTEGER),
    replayGroupItems: int("replay-group-items", args["replay-group-items"], 1, Number.MAX_SAFE_INTEGER),
    // Node's timers hold at most 2^31-1 ms
    replayGroupWindowMs: int("replay-group-window-ms", args["replay-group-window-ms"], 1, 2 ** 31 - 1),
    upgradeTimeoutMs: int("upgrade-timeout-ms", args["upgrade-timeout-ms"], 1, 2 ** 31 - 1),
    backlog: int("backlog", args.backlog, 1, 65535),
    exitWithParent: args["exit-with-parent"],
    checkFlags: args["check-flags"],
  };
}
