// TEST AID, not k6. How k6 consolidates a run's options and reads its K6_* environment (grafana/k6
// v1.6.0 line numbers; v2.2.0 has the same logic a few lines off, and no K6_NO_SUMMARY):
//   internal/cmd/config.go:248-283   script options, then the K6_* environment, then CLI flags;
//   lib/options.go:356-398           a higher tier that sets duration, iterations, stages or scenarios
//                                    replaces the lower tiers' execution settings entirely (so
//                                    K6_ITERATIONS=3 throws the script's scenarios away);
//   lib/options.go:234-237,288,319   K6_VUS, K6_DURATION, K6_ITERATIONS, K6_STAGES, K6_THRESHOLDS,
//                                    K6_SUMMARY_TREND_STATS;
//   internal/cmd/runtime_options.go:98-160  K6_NO_THRESHOLDS, K6_NO_SUMMARY, K6_SUMMARY_MODE,
//                                    K6_NEW_MACHINE_READABLE_SUMMARY, K6_INCLUDE_SYSTEM_ENV_VARS;
//   internal/cmd/run.go:179-191,522-533  no handleSummary when the summary is disabled; with
//                                    K6_NO_THRESHOLDS thresholds are not evaluated and their
//                                    submetrics are not marked observed (internal/metrics/engine/engine.go:118-143).
import { ConfigError } from "./summary.js";

const BOOL = /^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/;

function envBool(env, name) {
  const v = env[name];
  if (v === undefined) return false;
  // strconv.ParseBool's spellings; anything else is a config error (runtime_options.go:162-172).
  if (!BOOL.test(v))
    throw new ConfigError(
      `env var '${name}' is not a valid boolean value: strconv.ParseBool: parsing "${v}": invalid syntax`,
    );
  return /^(1|t|T|TRUE|true|True)$/.test(v);
}

function envInt(env, name) {
  const v = env[name];
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new ConfigError(`envconfig: ${name}: invalid integer ${JSON.stringify(v)}`);
  return Number(v);
}

/** The script's (or archive's) options with the environment's K6_* tier applied over them. */
export function consolidateOptions(scriptOptions, env) {
  const out = { ...scriptOptions };
  const vus = envInt(env, "K6_VUS");
  const iterations = envInt(env, "K6_ITERATIONS");
  const duration = env.K6_DURATION;
  if (env.K6_STAGES !== undefined) throw new ConfigError("k6 double: K6_STAGES (ramping-vus) is not modelled");
  if (vus !== undefined) out.vus = vus;
  if (iterations !== undefined || duration !== undefined) {
    // lib/options.go:370-376: the lower tiers' execution settings are dropped.
    delete out.scenarios;
    delete out.iterations;
    delete out.duration;
    delete out.stages;
    if (iterations !== undefined) out.iterations = iterations;
    if (duration !== undefined) out.duration = duration;
  }
  if (env.K6_SUMMARY_TREND_STATS !== undefined) out.summaryTrendStats = env.K6_SUMMARY_TREND_STATS.split(",");
  if (env.K6_THRESHOLDS !== undefined) throw new ConfigError("k6 double: K6_THRESHOLDS is not modelled");
  return out;
}

/** The runtime options read from the environment. */
export function runtimeOptions(env) {
  const mode = env.K6_SUMMARY_MODE ?? "compact";
  if (!["compact", "full", "disabled", "legacy"].includes(mode)) {
    throw new ConfigError(`invalid summary mode '${mode}'`);
  }
  return {
    noThresholds: envBool(env, "K6_NO_THRESHOLDS"),
    summaryEnabled: !envBool(env, "K6_NO_SUMMARY") && mode !== "disabled",
    newMachineReadableSummary: envBool(env, "K6_NEW_MACHINE_READABLE_SUMMARY"),
    // `k6 run` passes the system environment to __ENV by default; `k6 archive` does not
    // (runtime_options.go:22-25; archive.go:63 and run.go:539 pass false and true).
    includeSystemEnv: env.K6_INCLUDE_SYSTEM_ENV_VARS === undefined ? null : envBool(env, "K6_INCLUDE_SYSTEM_ENV_VARS"),
  };
}
