// TEST AID, not k6. The executors our scenarios use, validated with k6's own rules and messages, and
// each instance's share of them under an execution segment. Rules copied from grafana/k6 at v1.6.0
// (the Validate functions are at the same lines in v2.2.0):
//   lib/executor/constant_vus.go:33            minDuration = 1s (every duration and maxDuration below)
//   lib/executor/base_config.go:22,50-73        scenario name, startTime/gracefulStop not negative; gracefulStop default 30s (20)
//   lib/executor/per_vu_iterations.go:38-45,71-88  vus > 0, iterations > 0, maxDuration >= 1s (default 10m)
//   lib/executor/shared_iterations.go:41-48,76-96  vus > 0, iterations >= vus, maxDuration >= 1s (default 10m)
//   lib/executor/constant_arrival_rate.go:49-54,91-125  rate > 0, timeUnit > 0 (default 1s), duration >= 1s,
//       preAllocatedVUs given and >= 0, maxVUs >= preAllocatedVUs (maxVUs defaults to preAllocatedVUs)
//   lib/executor/constant_vus.go:66-80          vus > 0, duration >= 1s (the K6_DURATION shortcut's executor)
//   lib/executor/*.go init(): lib.StrictJSONUnmarshal, so an unknown field is an error
//   lib/executors.go:199-206                    "scenario NAME has configuration errors: A, B"
//   internal/cmd/config.go:335-345              "There were problems with the specified script configuration:"
//   lib/types/types.go:27                       durations: Go's time.ParseDuration, a bare number is milliseconds
import { ConfigError } from "./summary.js";

const MIN_DURATION_MS = 1000;
const SCENARIO_NAME = /^[0-9a-zA-Z_-]+$/;
const BASE_FIELDS = ["executor", "startTime", "gracefulStop", "env", "exec", "tags", "options"];
const FIELDS = {
  "per-vu-iterations": ["vus", "iterations", "maxDuration"],
  "shared-iterations": ["vus", "iterations", "maxDuration"],
  "constant-arrival-rate": ["rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs"],
  "constant-vus": ["vus", "duration"],
};
const UNIT_MS = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A k6 duration: "1m30s", "300ms", "1.5s", "2d", or a number of milliseconds. */
export function parseDuration(value) {
  if (typeof value === "number") return value;
  const text = String(value);
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  const sign = text.startsWith("-") ? -1 : 1;
  const body = text.replace(/^[-+]/, "");
  const parts = [...body.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== body) {
    throw new ConfigError(`k6 double: time: invalid duration ${JSON.stringify(text)}`);
  }
  return sign * parts.reduce((ms, p) => ms + Number(p[1]) * UNIT_MS[p[2]], 0);
}

/** Go's time.Duration String(), enough for k6's messages ("1ms", "1s", "1m30s"). */
export function formatDuration(ms) {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${s}s`;
}

const isInt = (v) => Number.isInteger(v);

/** k6's Validate() of one scenario: the list of its errors (empty when valid). */
function scenarioErrors(name, sc) {
  const errors = [];
  const fields = FIELDS[sc.executor];
  if (!SCENARIO_NAME.test(name)) {
    errors.push("the scenario name should contain only numbers, latin letters, underscores, and dashes");
  }
  for (const key of Object.keys(sc)) {
    if (fields && !BASE_FIELDS.includes(key) && !fields.includes(key)) errors.push(`json: unknown field "${key}"`);
  }
  const dur = (key, fallback) => (sc[key] === undefined || sc[key] === null ? fallback : parseDuration(sc[key]));
  if (dur("startTime", 0) < 0) errors.push("the startTime can't be negative");
  if (dur("gracefulStop", 30_000) < 0) errors.push("the gracefulStop timeout can't be negative");
  const atLeast = (key, ms) => {
    if (ms < MIN_DURATION_MS) errors.push(`the ${key} must be at least 1s, but is ${formatDuration(ms)}`);
  };
  switch (sc.executor) {
    case "per-vu-iterations":
    case "shared-iterations": {
      const vus = sc.vus ?? 1;
      const iterations = sc.iterations ?? 1;
      if (!(vus > 0)) errors.push("the number of VUs must be more than 0");
      if (sc.executor === "per-vu-iterations" && !(iterations > 0)) {
        errors.push("the number of iterations must be more than 0");
      }
      if (sc.executor === "shared-iterations" && iterations < vus) {
        errors.push(`the number of iterations (${iterations}) can't be less than the number of VUs (${vus})`);
      }
      atLeast("maxDuration", dur("maxDuration", 600_000));
      break;
    }
    case "constant-arrival-rate": {
      if (sc.rate === undefined || sc.rate === null) errors.push("the iteration rate isn't specified");
      else if (!(sc.rate > 0)) errors.push("the iteration rate must be more than 0");
      if (!(dur("timeUnit", 1000) > 0)) errors.push("the timeUnit must be more than 0");
      if (sc.duration === undefined || sc.duration === null) errors.push("the duration is unspecified");
      else atLeast("duration", dur("duration"));
      if (sc.preAllocatedVUs === undefined || sc.preAllocatedVUs === null) {
        errors.push("the number of preAllocatedVUs isn't specified");
      } else if (sc.preAllocatedVUs < 0) errors.push("the number of preAllocatedVUs can't be negative");
      if (sc.maxVUs !== undefined && sc.maxVUs !== null && sc.maxVUs < (sc.preAllocatedVUs ?? 0)) {
        errors.push("maxVUs can't be less than preAllocatedVUs");
      }
      break;
    }
    case "constant-vus":
      if (!((sc.vus ?? 1) > 0)) errors.push("the number of VUs must be more than 0");
      if (sc.duration === undefined || sc.duration === null) errors.push("the duration is unspecified");
      else atLeast("duration", dur("duration"));
      break;
    default:
      throw new ConfigError(
        sc.executor
          ? `k6 double: executor ${JSON.stringify(sc.executor)} is not modelled (k6 has it or names it an unknown executor type)`
          : `scenario '${name}' doesn't have a specified executor type`,
      );
  }
  for (const key of ["vus", "iterations", "rate", "preAllocatedVUs", "maxVUs"]) {
    if (sc[key] !== undefined && sc[key] !== null && !isInt(sc[key])) {
      errors.push(`json: cannot unmarshal number ${sc[key]} into Go struct field .${key} of type int64`);
    }
  }
  return errors;
}

/** Throws k6's configuration error (exit 104) when any scenario is invalid. */
export function validateScenarios(scenarios) {
  const problems = [];
  for (const [name, sc] of Object.entries(scenarios)) {
    const errors = scenarioErrors(name, sc);
    if (errors.length) problems.push(`scenario ${name} has configuration errors: ${errors.join(", ")}`);
  }
  if (problems.length) {
    throw new ConfigError(
      `There were problems with the specified script configuration:\n${problems.map((p) => `\t- ${p}`).join("\n")}`,
    );
  }
}

/**
 * The scenarios of the consolidated options: `scenarios`, or the one the shortcuts derive
 * (lib/executor/execution_config_shortcuts.go: iterations -> shared-iterations, duration ->
 * constant-vus, neither -> one VU, one iteration).
 */
export function scenariosOf(options) {
  if (options.scenarios) {
    if (options.iterations !== undefined || options.duration !== undefined) {
      throw new ConfigError(
        "using multiple execution config shortcuts (`iterations`, `duration`) simultaneously with `scenarios` is not allowed",
      );
    }
    return options.scenarios;
  }
  const vus = options.vus ?? 1;
  if (options.iterations !== undefined) {
    return { default: { executor: "shared-iterations", vus, iterations: options.iterations } };
  }
  if (options.duration !== undefined) return { default: { executor: "constant-vus", vus, duration: options.duration } };
  return { default: { executor: "per-vu-iterations", vus, iterations: 1 } };
}

/**
 * This instance's share of one scenario: its VUs (ids in the whole test, striped), the iteration
 * numbers it hands out in start order (iterationInTest), and the arrival schedule.
 * @param {string} name
 * @param {object} sc  a validated scenario
 * @param {import("./segments.js").Tuple} tuple
 */
export function scenarioPlan(name, sc, tuple) {
  const gracefulStopMs = sc.gracefulStop === undefined ? 30_000 : parseDuration(sc.gracefulStop);
  const base = { name, executor: sc.executor, gracefulStopMs };
  switch (sc.executor) {
    case "per-vu-iterations":
    case "shared-iterations": {
      const vus = tuple.scale(sc.vus ?? 1);
      const perVu = sc.iterations ?? 1;
      // shared-iterations scales the iteration count itself (shared_iterations.go GetIterations).
      const total = sc.executor === "per-vu-iterations" ? vus * perVu : tuple.scale(perVu);
      return {
        ...base,
        vus,
        perVu: sc.executor === "per-vu-iterations" ? perVu : null,
        iterationIndexes: tuple.indexes(total),
        maxDurationMs: sc.maxDuration === undefined ? 600_000 : parseDuration(sc.maxDuration),
      };
    }
    case "constant-vus":
      return {
        ...base,
        vus: tuple.scale(sc.vus ?? 1),
        perVu: null,
        durationMs: parseDuration(sc.duration),
        iterationIndexes: null,
        maxDurationMs: parseDuration(sc.duration),
      };
    case "constant-arrival-rate": {
      const preAllocated = sc.preAllocatedVUs;
      const max = sc.maxVUs ?? preAllocated;
      const durationMs = parseDuration(sc.duration);
      const periodMs = (sc.timeUnit === undefined ? 1000 : parseDuration(sc.timeUnit)) / sc.rate;
      // constant_arrival_rate.go Init (176-178): the schedule is striped over a sequence re-cut by maxVUs.
      const arrivals = tuple.fromValue(max);
      const starts = [];
      if (arrivals) {
        const total = Math.ceil(durationMs / periodMs - 1e-9);
        for (const gi of arrivals.indexes(arrivals.scale(total))) starts.push({ gi, atMs: gi * periodMs });
      }
      return {
        ...base,
        vus: tuple.scale(preAllocated),
        maxVUs: tuple.scale(max),
        perVu: null,
        arrivals: starts,
        iterationIndexes: starts.map((s) => s.gi),
        maxDurationMs: durationMs,
      };
    }
    default:
      throw new ConfigError(`k6 double: executor ${sc.executor} is not modelled`);
  }
}
