// `bench` flags -> a resolved BenchConfig (one typed config per concern). Pure apart from reading
// --token-file: no processes. The flags themselves are declared and validated by the table in
// options/bench.ts; this adds the rules between flags. Every bad flag is a UsageError naming it (the
// CLI exits 2).
import { THREAD_CASES } from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload, withThreadId } from "../../scenarios/lib/session.js";
import { type BenchConfig, type ConfigFileRecord, MEMORY_MODES, type TargetSpec } from "../bench/run/config.js";
import type { CompletionRule } from "../driver/session-spec.js";
import { parseRefFlags, refVariantNames } from "../refs/checkout-plan.js";
import type { Delivery } from "../server-process/bundled.js";
import { listFlag, UsageError } from "../util/usage.js";
import { BENCH_OPTIONS, DEFAULT_EVENTS, DEFAULT_PROJECTS, QUICK } from "./bench.js";
import { bindingFromFlags } from "./binding.js";
import { guardFromFlags } from "./guard.js";
import { type Flags, given, readFlags } from "./spec.js";
import { type Env, resolveToken } from "./token.js";

/** Raw flag values keyed by the flag's name as typed (kebab-case), as yargs leaves them. */
export type RawFlags = Record<string, unknown>;

const NAME_RE = /^[A-Za-z0-9._-]{1,40}$/;

/** Flags of the bundled server the harness sets itself: --server-arg may not repeat them. */
const HARNESS_SERVER_FLAGS = [
  "db",
  "host",
  "port",
  "delivery",
  "token",
  "token-env",
  "exit-with-parent",
  "check-flags",
  "help",
];

/**
 * --server-arg words: each a flag (--name or --name=value) or the value of the flag before it. The
 * server checks names and values itself (bench runs it with --check-flags before anything starts).
 */
function serverArgsFlag(words: string[] | undefined): string[] {
  for (const word of words ?? []) {
    const name = /^--([^=]*)/.exec(word)?.[1];
    if (name === undefined) {
      if (word.startsWith("-")) throw new UsageError(`--server-arg takes --long flags (got ${JSON.stringify(word)})`);
      continue;
    }
    const flag = name.replace(/^no-/, "");
    if (HARNESS_SERVER_FLAGS.includes(flag)) {
      throw new UsageError(
        `--server-arg ${JSON.stringify(word)}: the harness sets --${flag} itself (${HARNESS_SERVER_FLAGS.map((f) => `--${f}`).join(", ")}; use --variants or --token)`,
      );
    }
  }
  return words ?? [];
}

/** --gc-flags: node/V8 flags (--name or --name=value), separated by spaces or commas. */
function gcFlagsFlag(text: string | undefined): string[] {
  const words = (text ?? "").split(/[\s,]+/).filter(Boolean);
  for (const w of words) {
    if (!/^--[A-Za-z0-9][\w-]*(=[\w.:-]+)?$/.test(w)) {
      throw new UsageError(`--gc-flags takes node flags such as --predictable-gc-schedule (got ${JSON.stringify(w)})`);
    }
  }
  return words;
}

function parseTargets(
  raw: RawFlags,
  variants: readonly Delivery[],
  commands: string[] | undefined,
  serverArgs: readonly string[],
): TargetSpec[] {
  if (commands !== undefined) {
    if (given(raw, "variants")) {
      throw new UsageError("--target and --variants cannot be combined (--variants names bundled strategies)");
    }
    const targets = commands.map((v): TargetSpec => {
      const eq = v.indexOf("=");
      const name = eq > 0 ? v.slice(0, eq).trim() : "";
      const command = eq > 0 ? v.slice(eq + 1).trim() : "";
      if (!NAME_RE.test(name) || command === "") {
        throw new UsageError(
          `--target must be NAME=COMMAND with NAME of letters, digits, . _ - (got ${JSON.stringify(v)})`,
        );
      }
      return { name, kind: "command", command };
    });
    uniqueNames("target", targets);
    return targets;
  }
  // readFlags drops repeats; a repeated name is still an error (it would compare a variant with itself).
  const names = given(raw, "variants") ? listFlag("variants", raw.variants) : [...variants];
  const targets = names.map((n): TargetSpec => ({ name: n, kind: "bundled", delivery: n as Delivery, serverArgs }));
  uniqueNames("variants", targets);
  return targets;
}
function uniqueNames(flag: string, targets: TargetSpec[]): void {
  const seen = new Set<string>();
  for (const t of targets) {
    if (seen.has(t.name)) {
      throw new UsageError(
        `--${flag} names must be unique (${t.name} given twice; use --aa to compare a target with itself)`,
      );
    }
    seen.add(t.name);
  }
}

function parseCompletion(s: string): CompletionRule {
  if (s === "exit") return "exit";
  const m = /^([^=\s]+)=(.+)$/.exec(s);
  if (!m?.[1] || !m[2]) throw new UsageError(`--completion must be FIELD=VALUE or exit (got ${JSON.stringify(s)})`);
  return { field: m[1], value: m[2] };
}

// RFC 9110 token characters: what a header name may hold.
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** --header NAME: VALUE, repeatable; a name given twice is an error (which one would win?). */
function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const v of values) {
    const colon = v.indexOf(":");
    const name = colon > 0 ? v.slice(0, colon).trim() : "";
    const value = colon > 0 ? v.slice(colon + 1).trim() : "";
    // The value is never echoed: it may be a credential.
    if (!HEADER_NAME_RE.test(name) || value === "" || /[\r\n]/.test(value)) {
      throw new UsageError(
        `--header must be NAME: VALUE with a header name and a one-line value (got a header named ${JSON.stringify(name)})`,
      );
    }
    const key = name.toLowerCase();
    if (key === "authorization") throw new UsageError("--header cannot set Authorization: use --token or --token-file");
    if (Object.keys(headers).some((k) => k.toLowerCase() === key)) {
      throw new UsageError(`--header ${name} is given twice`);
    }
    headers[name] = value;
  }
  return headers;
}

/** Checks the template yields a JSON object with a sequence (the shared client's substitution rule). */
function parseSubscribePayload(template: string, flag = "subscribe-payload"): string {
  let parsed: unknown;
  try {
    parsed = buildSubscribePayload(withThreadId(template, "t"), 0);
  } catch (e) {
    throw new UsageError(`--${flag} must be a JSON template (${(e as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UsageError(
      `--${flag} must be a JSON object template, {after} standing for the sequence (got ${JSON.stringify(template)})`,
    );
  }
  return template;
}

/** --ready-line: a valid regex, and only for foreign targets (the bundled server prints its own ready line). */
function readyLineFlag(source: string | undefined, targets: TargetSpec[]): string | null {
  if (source === undefined) return null;
  if (targets.some((t) => t.kind !== "command")) {
    throw new UsageError(
      "--ready-line applies to --target commands only (the bundled server prints its own ready line)",
    );
  }
  try {
    new RegExp(source);
  } catch (e) {
    throw new UsageError(`--ready-line must be a regular expression (${(e as Error).message})`);
  }
  return source;
}

type BenchFlags = Flags<typeof BENCH_OPTIONS>;

/** The targets: --ref's checkouts, --target's commands, or the bundled variants with --server-arg and --gc-flags. */
function resolveTargets(raw: RawFlags, f: BenchFlags, refs: ReturnType<typeof parseRefFlags>): TargetSpec[] {
  const serverArgs = serverArgsFlag(f["server-arg"]);
  if (serverArgs.length > 0 && (refs || f.target !== undefined)) {
    throw new UsageError(
      `--server-arg applies to the bundled variants only; a ${refs ? "--ref's" : "--target's"} flags go in its command`,
    );
  }
  const gcFlags = gcFlagsFlag(f["gc-flags"]);
  if (gcFlags.length > 0 && (refs || f.target !== undefined)) {
    throw new UsageError(
      `--gc-flags applies to the bundled variants only; a ${refs ? "--ref's" : "--target's"} node flags go in its command`,
    );
  }
  // A --ref target's command runs in its checkout, set once the checkouts exist (scripts/refs/).
  return refs
    ? refVariantNames(refs).map((name): TargetSpec => ({ name, kind: "command", command: refs.start }))
    : parseTargets(raw, f.variants, f.target, serverArgs).map((t) =>
        t.kind === "bundled" && gcFlags.length > 0 ? { ...t, nodeArgs: gcFlags } : t,
      );
}

/** Which parts run: the latency and memory matrices, the leak cycles, the storm; at least one. */
function resolveParts(raw: RawFlags, f: BenchFlags) {
  const leakCycles = f["leak-cycles"] ?? 0;
  if (f["leak-only"] && leakCycles === 0) throw new UsageError("--leak-only needs --leak-cycles N");
  // --leak-only: neither matrix runs, only the leak cycles.
  const latency = f.latency && !f["leak-only"];
  const memory = f.memory && !f["leak-only"];
  // Its profiling trials are per memory cell: without the memory matrix there is nothing to attribute.
  if (f.attribute && !memory)
    throw new UsageError("--attribute needs the memory matrix (not with --no-memory or --leak-only)");
  if (!f.attribute && given(raw, "attribute-interval-bytes"))
    throw new UsageError("--attribute-interval-bytes goes with --attribute (the profiling trials' sampling interval)");
  const stormClients = f.storm ?? [];
  if (!memory && !latency && leakCycles === 0 && stormClients.length === 0) {
    throw new UsageError("--no-memory and --no-latency together leave nothing to run");
  }
  return { latency, memory, leakCycles, stormClients };
}

/** --cursor and --latest: the sequences the cases start from, the cursor not past the latest. */
function sequencesFlags(f: BenchFlags): { cursor: number | null; latest: number | null } {
  const cursor = f.cursor ?? null;
  const latest = f.latest ?? null;
  if (cursor !== null && latest !== null && cursor > latest) {
    throw new UsageError(`--cursor must not exceed --latest (got --cursor ${cursor} --latest ${latest})`);
  }
  return { cursor, latest };
}

/** What the client sends and waits for: path, credentials, subscriptions, completion, probe, timings. */
function protocolConfig(f: BenchFlags, env: Env): BenchConfig["protocol"] {
  if (!f["url-path"].startsWith("/")) {
    throw new UsageError(`--url-path must start with / (got ${JSON.stringify(f["url-path"])})`);
  }
  return {
    urlPath: f["url-path"],
    token: resolveToken(f, env),
    headers: parseHeaders(f.header ?? []),
    subscribeTag: f["subscribe-tag"],
    subscribePayload: parseSubscribePayload(f["subscribe-payload"]),
    threadSubscribeTag: f["thread-subscribe-tag"],
    threadSubscribePayload: parseSubscribePayload(f["thread-subscribe-payload"], "thread-subscribe-payload"),
    completion: parseCompletion(f.completion),
    probeTag: f["probe-tag"],
    probePayload: f["probe-payload"],
    ackDelayMs: f["ack-delay-ms"],
    holdMs: f["hold-ms"],
    trialTimeoutMs: f["trial-timeout-ms"],
  };
}

/** The run as a whole: output, early stops, checks before the start, where results go. */
function runConfig(f: BenchFlags, configFile: ConfigFileRecord | null): BenchConfig["run"] {
  return {
    out: f.out ?? null,
    quick: f.quick,
    failFast: f["fail-fast"],
    autoSampleSeconds: f["auto-sample"] ?? null,
    memoryCheck: f["memory-check"],
    disturbedCores: f["disturbed-cores"],
    waitQuietSeconds: f["wait-quiet"] ?? null,
    configFile,
    history: f.history ?? null,
    json: f.json,
    summaryMd: f["summary-md"] ?? null,
  };
}

/** --quick's smaller values apply where the flag is not given (QUICK, beside the flags' own defaults). */
function quickPreset(raw: RawFlags, f: BenchFlags) {
  return <K extends keyof typeof QUICK & keyof BenchFlags>(flag: K): BenchFlags[K] | (typeof QUICK)[K] =>
    f.quick && !given(raw, flag) ? QUICK[flag] : f[flag];
}

/**
 * Resolves the flags into a BenchConfig, applying --quick's smaller defaults where a flag is absent.
 * `env` supplies CATCHUP_TOKEN (the CLI passes process.env).
 */
export function resolveConfig(raw: RawFlags, env: Env = {}, configFile: ConfigFileRecord | null = null): BenchConfig {
  const f = readFlags(BENCH_OPTIONS, raw);
  const quick = f.quick;
  const refs = parseRefFlags(raw);
  const targets = resolveTargets(raw, f, refs);
  const { latency, memory, leakCycles, stormClients } = resolveParts(raw, f);
  // Without --guard, the guard judges the headline figure of each part that runs.
  const guard = guardFromFlags(raw, { latency, memory, leak: leakCycles > 0, storm: stormClients.length > 0 });
  if (f["auto-sample"] !== undefined && guard.guard === null) {
    throw new UsageError(
      "--auto-sample needs --ceiling (it adds rounds until each guarded cell is decided against it)",
    );
  }
  const sequences = sequencesFlags(f);
  // A foreign server (or an older revision of this one) may have no thread subscription: its runs
  // take the thread cases only when --cases names them.
  const cases =
    given(raw, "cases") || targets.every((t) => t.kind === "bundled")
      ? f.cases
      : f.cases.filter((c) => !(THREAD_CASES as readonly string[]).includes(c));
  const preset = quickPreset(raw, f);
  return {
    run: runConfig(f, configFile),
    protocol: protocolConfig(f, env),
    targets: {
      targets,
      refs,
      readyLine: readyLineFlag(f["ready-line"], targets),
      startTimeoutMs: f["start-timeout-ms"],
      stopGraceMs: f["stop-grace-ms"],
      aa: preset("aa"),
      driver: f.driver,
    },
    fixtures: {
      fixture: f.fixture ?? null,
      fixturesDir: f["fixtures-dir"] ?? null,
      seed: f.seed,
      projects: quick ? QUICK.projects : DEFAULT_PROJECTS,
      events: DEFAULT_EVENTS,
      sequences,
    },
    latency: {
      enabled: latency,
      cases,
      trials: preset("trials"),
      sequentialSeconds: quick && !given(raw, "latency-sequential") ? 0 : f["latency-sequential"],
    },
    memory: {
      enabled: memory,
      trials: preset("memory-trials"),
      clients: f.clients,
      scriptBytes: [...preset("script-bytes")],
      modes: [...MEMORY_MODES],
      sampleIntervalMs: f["sample-interval-ms"],
      heapIntervalMs: f["heap-interval-ms"] ?? null,
      sequentialSeconds: quick && !given(raw, "memory-sequential") ? 0 : f["memory-sequential"],
      pin: f.pin,
      attribute: f.attribute ? { intervalBytes: f["attribute-interval-bytes"] } : null,
    },
    leak: {
      cycles: leakCycles,
      warmup: f["leak-warmup"],
      thresholdBytes: Math.round(f["leak-threshold-kib"] * 1024),
    },
    storm: {
      clients: stormClients,
      rampMs: f["storm-ramp-ms"],
      resumeRatio: f["storm-resume-ratio"],
      trials: f["storm-trials"],
      timeoutMs: f["storm-timeout-ms"],
    },
    guard: guard.guard,
    guardMetrics: guard.metrics,
    minEffect: guard.minEffect,
    binding: bindingFromFlags(raw, f, targets),
  };
}
