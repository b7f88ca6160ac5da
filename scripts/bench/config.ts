// `bench` flags -> a resolved BenchConfig. Pure: no files, no processes. Every bad flag is a
// UsageError whose one-line message names the flag and the allowed values (the CLI exits 2).
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import { defaultGuard, GUARD_METRICS } from "../report/guard.js";
import type { LatencyCase, MemoryMode } from "../results.js";
import { enumFlag, intFlag, jsonFlag, listFlag, numberFlag, UsageError } from "../usage.js";

export const LATENCY_CASES: readonly LatencyCase[] = ["snapshot", "resume-none", "resume-one", "resume-many"];
export const MEMORY_MODES: readonly MemoryMode[] = ["memory", "snapshot"];
export const DELIVERIES = ["legacy", "batched"] as const;
export type Delivery = (typeof DELIVERIES)[number];
export const DRIVERS = ["node", "k6"] as const;
export type DriverName = (typeof DRIVERS)[number];

export const DEV_TOKEN = "catchup-dev-token";
export const DEFAULT_SUBSCRIBE_PAYLOAD = '{"afterSequence":{after},"requestCompletionMarker":true}';

/** A target: the bundled server with a delivery strategy, or a foreign server started by a shell command. */
export type TargetSpec =
  | { name: string; kind: "bundled"; delivery: Delivery }
  | { name: string; kind: "command"; command: string };

export type CompletionRule = { field: string; value: string } | "exit";

export interface BenchConfig {
  cases: LatencyCase[];
  /** Trials per latency case. */
  trials: number;
  /** Trials per memory cell (each a fresh server); 1 by default, as in the reference study. */
  memoryTrials: number;
  ackDelayMs: number;
  holdMs: number;
  clients: number[];
  scriptBytes: number[];
  memoryModes: MemoryMode[];
  memory: boolean;
  latency: boolean;
  sampleIntervalMs: number;
  /** Run directory; null = reports/<timestamp> chosen at run time. */
  out: string | null;
  quick: boolean;
  /** Fixture for the latency matrix; null = the default 1 KiB fixture (built if missing). */
  fixture: string | null;
  /** Where default fixtures are found or built; null = <project>/fixtures. */
  fixturesDir: string | null;
  aa: boolean;
  failFast: boolean;
  driver: DriverName;
  seed: number;
  /** First is the baseline. */
  targets: TargetSpec[];
  urlPath: string;
  token: string;
  subscribeTag: string;
  /** JSON template; `{after}` becomes the case's afterSequence or is dropped for snapshot. */
  subscribePayload: string;
  completion: CompletionRule;
  probeTag: string;
  probePayload: unknown;
  ceiling: number | null;
  guard: string[];
  /** Default fixtures: projects per fixture and post-cursor events (quick keeps 1,000 events). */
  projects: number;
  events: number;
  /** Timeouts (ms): one session/trial, and a target becoming ready. */
  trialTimeoutMs: number;
  startTimeoutMs: number;
}

/** Raw flag values keyed by the flag's name as typed (kebab-case), as yargs leaves them. */
export type RawFlags = Record<string, unknown>;

const has = (raw: RawFlags, flag: string) => raw[flag] !== undefined;

function intList(flag: string, value: unknown, min: number, max: number): number[] {
  const items = listFlag(flag, value).map((s) => intFlag(flag, s, min, max));
  return [...new Set(items)];
}

function boolFlag(flag: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value === "boolean") return value;
  throw new UsageError(`--${flag} is a switch (use --${flag} or --no-${flag}; got ${JSON.stringify(value)})`);
}

function stringFlag(flag: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (Array.isArray(value)) throw new UsageError(`--${flag} may be given once (got ${value.length} values)`);
  const s = String(value);
  if (s.trim() === "") throw new UsageError(`--${flag} must not be empty`);
  return s;
}

const NAME_RE = /^[A-Za-z0-9._-]{1,40}$/;

function parseTargets(raw: RawFlags): TargetSpec[] {
  if (has(raw, "target")) {
    if (has(raw, "variants")) {
      throw new UsageError("--target and --variants cannot be combined (--variants names bundled strategies)");
    }
    const values = (Array.isArray(raw.target) ? raw.target : [raw.target]).map(String);
    const targets = values.map((v): TargetSpec => {
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
  const names = has(raw, "variants") ? listFlag("variants", raw.variants) : ["legacy", "batched"];
  const targets = names.map((n): TargetSpec => {
    const delivery = enumFlag("variants", n, DELIVERIES);
    return { name: delivery, kind: "bundled", delivery };
  });
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

function parseCompletion(value: unknown): CompletionRule {
  const s = stringFlag("completion", value, "kind=synchronized");
  if (s === "exit") return "exit";
  const m = /^([^=\s]+)=(.+)$/.exec(s);
  if (!m?.[1] || !m[2]) throw new UsageError(`--completion must be FIELD=VALUE or exit (got ${JSON.stringify(s)})`);
  return { field: m[1], value: m[2] };
}

/** Checks the template yields a JSON object with a sequence (the shared client's substitution rule). */
function parseSubscribePayload(value: unknown): string {
  const template = stringFlag("subscribe-payload", value, DEFAULT_SUBSCRIBE_PAYLOAD);
  let parsed: unknown;
  try {
    parsed = buildSubscribePayload(template, 0);
  } catch (e) {
    throw new UsageError(`--subscribe-payload must be a JSON template (${(e as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UsageError(
      `--subscribe-payload must be a JSON object template, {after} standing for the sequence (got ${JSON.stringify(template)})`,
    );
  }
  return template;
}

/** Resolves the flags into a BenchConfig, applying --quick's smaller defaults where a flag is absent. */
export function resolveConfig(raw: RawFlags): BenchConfig {
  const quick = boolFlag("quick", raw.quick, false);
  const cases = has(raw, "cases")
    ? [...new Set(listFlag("cases", raw.cases).map((c) => enumFlag("cases", c, LATENCY_CASES)))]
    : [...LATENCY_CASES];
  const targets = parseTargets(raw);

  const ceiling = has(raw, "ceiling") ? numberFlag("ceiling", raw.ceiling, 0.01, 100) : null;
  if (has(raw, "guard") && ceiling === null) {
    throw new UsageError("--guard needs --ceiling (the ratio above which a guarded metric fails, e.g. 1.03)");
  }
  const urlPath = stringFlag("url-path", raw["url-path"], "/ws");
  if (!urlPath.startsWith("/")) throw new UsageError(`--url-path must start with / (got ${JSON.stringify(urlPath)})`);
  const probePayload = has(raw, "probe-payload") ? jsonFlag("probe-payload", raw["probe-payload"]) : {};
  const memory = boolFlag("memory", raw.memory, true);
  const latency = boolFlag("latency", raw.latency, true);
  if (!memory && !latency) throw new UsageError("--no-memory and --no-latency together leave nothing to run");
  // Without --guard, the guard judges the headline figure of each matrix that runs.
  const guard = has(raw, "guard")
    ? listFlag("guard", raw.guard).map((g) => enumFlag("guard", g, GUARD_METRICS))
    : defaultGuard({ latency, memory });
  const fixture = has(raw, "fixture") ? stringFlag("fixture", raw.fixture, "") : null;
  const out = has(raw, "out") ? stringFlag("out", raw.out, "") : null;
  const fixturesDir = has(raw, "fixtures-dir") ? stringFlag("fixtures-dir", raw["fixtures-dir"], "") : null;
  return {
    cases,
    trials: has(raw, "trials") ? intFlag("trials", raw.trials, 1, 1000) : quick ? 1 : 3,
    memoryTrials: has(raw, "memory-trials") ? intFlag("memory-trials", raw["memory-trials"], 1, 1000) : 1,
    ackDelayMs: has(raw, "ack-delay-ms") ? intFlag("ack-delay-ms", raw["ack-delay-ms"], 0, 60_000) : 100,
    holdMs: has(raw, "hold-ms") ? intFlag("hold-ms", raw["hold-ms"], 0, 60_000) : 100,
    clients: has(raw, "clients") ? intList("clients", raw.clients, 1, 1000) : [1, 4],
    scriptBytes: has(raw, "script-bytes")
      ? intList("script-bytes", raw["script-bytes"], 64, 1_048_576)
      : quick
        ? [1024]
        : [1024, 8192],
    memoryModes: [...MEMORY_MODES],
    memory,
    latency,
    sampleIntervalMs: has(raw, "sample-interval-ms")
      ? intFlag("sample-interval-ms", raw["sample-interval-ms"], 1, 10_000)
      : 10,
    out,
    quick,
    fixture,
    fixturesDir,
    aa: boolFlag("aa", raw.aa, false),
    failFast: boolFlag("fail-fast", raw["fail-fast"], false),
    driver: has(raw, "driver") ? enumFlag("driver", raw.driver, DRIVERS) : "node",
    seed: has(raw, "seed") ? intFlag("seed", raw.seed, 0, 4_294_967_295) : 1,
    targets,
    urlPath,
    token: stringFlag("token", raw.token, DEV_TOKEN),
    subscribeTag: stringFlag("subscribe-tag", raw["subscribe-tag"], "orchestration.subscribeShell"),
    subscribePayload: parseSubscribePayload(raw["subscribe-payload"]),
    completion: parseCompletion(raw.completion),
    probeTag: stringFlag("probe-tag", raw["probe-tag"], "server.getConfig"),
    probePayload,
    ceiling,
    guard,
    // Legacy replay chunks hold 512 coalesced items: > 512 projects keep resume-many at 4 chunks.
    projects: quick ? 600 : 1000,
    events: 1000,
    trialTimeoutMs: has(raw, "trial-timeout-ms")
      ? intFlag("trial-timeout-ms", raw["trial-timeout-ms"], 100, 3_600_000)
      : 60_000,
    startTimeoutMs: has(raw, "start-timeout-ms")
      ? intFlag("start-timeout-ms", raw["start-timeout-ms"], 100, 600_000)
      : 20_000,
  };
}
