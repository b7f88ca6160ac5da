// TEST AID, not k6. Builds k6-style summary data from recorded samples: per-metric values for the
// requested trend stats, submetrics for thresholds that select tags (`name{tag:value}`), and
// threshold results. Empty trends report zeros with count 0, as k6 does.

/** Parses "name{tag:value,tag2:value2}" into the metric name and its tag filter. */
export function parseMetricKey(key) {
  const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key);
  if (!m) throw new Error(`k6 double: bad threshold key ${key}`);
  const tags = {};
  for (const part of (m[2] ?? "").split(",").filter(Boolean)) {
    const i = part.indexOf(":");
    tags[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return { name: m[1], tags };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

function trendValues(values, stats) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const out = {};
  for (const stat of stats) {
    if (stat === "count") out.count = n;
    else if (stat === "avg") out.avg = n ? sorted.reduce((a, b) => a + b, 0) / n : 0;
    else if (stat === "min") out.min = n ? sorted[0] : 0;
    else if (stat === "max") out.max = n ? sorted[n - 1] : 0;
    else if (stat === "med") out.med = percentile(sorted, 50);
    else out[stat] = percentile(sorted, percentileOf(stat));
  }
  return out;
}

function metricValues(type, samples, stats, durationMs) {
  const values = samples.map((s) => s.value);
  switch (type) {
    case "trend":
      return trendValues(values, stats);
    case "counter": {
      const count = values.reduce((a, b) => a + b, 0);
      return { count, rate: durationMs > 0 ? count / (durationMs / 1000) : 0 };
    }
    case "gauge":
      return { value: values.at(-1) ?? 0, min: Math.min(...values, 0), max: Math.max(...values, 0) };
    case "rate": {
      const passes = values.filter((v) => v !== 0).length;
      return { rate: values.length ? passes / values.length : 0, passes, fails: values.length - passes };
    }
    default:
      throw new Error(`k6 double: unknown metric type ${type}`);
  }
}

/** A configuration error: k6 refuses the options before the test starts (exit 104). */
export class ConfigError extends Error {}

const STATIC_STATS = ["avg", "min", "med", "max", "count"];

/** p(N)'s N, as k6's parsePercentile (grafana/k6 v2.2.0 metrics/sample.go:174-186). */
function percentileOf(stat) {
  if (!stat.startsWith("p(") || !stat.endsWith(")")) {
    throw new ConfigError(`invalid trend stat '${stat}', unknown format`);
  }
  const text = stat.slice(2, -1);
  const p = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(p) || p < 0 || p > 100) {
    throw new ConfigError(`invalid percentile trend stat value '${stat}', provide a number between 0 and 100`);
  }
  return p;
}

/**
 * summaryTrendStats (script or K6_SUMMARY_TREND_STATS) is checked when the config is consolidated:
 * a bad entry is exit 104 (metrics/sample.go:141-171, internal/cmd/config.go:222-227,257).
 */
export function checkTrendStats(stats) {
  for (const stat of stats ?? []) if (!STATIC_STATS.includes(stat)) percentileOf(String(stat));
}

/** The aggregations k6 allows in a threshold, per metric type. */
const AGGREGATIONS = {
  counter: (s) => s === "count" || s === "rate",
  gauge: (s) => s === "value",
  rate: (s) => s === "rate",
  trend: (s) => ["avg", "min", "max", "med"].includes(s) || /^p\(\d+(?:\.\d+)?\)$/.test(s),
};

/** Parses "stat op number" and checks the stat is an aggregation of the metric's type, as k6 does. */
export function parseThreshold(expr, type, key) {
  const m = /^\s*([a-z]+|p\(\d+(?:\.\d+)?\))\s*(<=|>=|==|===|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(expr);
  if (!m) throw new ConfigError(`k6 double: threshold ${key}: cannot parse ${JSON.stringify(expr)}`);
  if (!AGGREGATIONS[type]?.(m[1])) {
    throw new ConfigError(`k6 double: threshold ${key}: aggregation ${m[1]} is not valid for a ${type} metric`);
  }
  return m;
}

/** Evaluates "stat op number" threshold expressions such as "p(95)<500" or "count==0". */
export function evaluateThreshold(expr, values, type = "trend", key = "") {
  const [, stat, op, num] = parseThreshold(expr, type, key);
  const v = stat === "value" ? values.value : values[stat];
  if (typeof v !== "number") throw new Error(`k6 double: threshold ${expr} reads ${stat}, which this metric lacks`);
  const n = Number(num);
  switch (op) {
    case "<":
      return v < n;
    case "<=":
      return v <= n;
    case ">":
      return v > n;
    case ">=":
      return v >= n;
    case "!=":
      return v !== n;
    default:
      return v === n;
  }
}

/**
 * @param {{ samples: Array<{metric: string, value: number, tags: Record<string,string>}>, metrics: Map<string, {type: string, isTime: boolean}> }} recorded
 * @param {{ thresholds?: Record<string, Array<string | {threshold: string}>>, summaryTrendStats?: string[] }} options
 * @param {number} durationMs
 * @returns {{ metrics: Record<string, object>, thresholdsFailed: boolean }}
 */
export function buildSummaryMetrics(recorded, options, durationMs, noThresholds = false) {
  if (!noThresholds) checkThresholds(recorded, options);
  const stats = options.summaryTrendStats ?? ["avg", "min", "med", "max", "p(90)", "p(95)"];
  const metrics = {};
  let thresholdsFailed = false;
  const byName = new Map();
  for (const s of recorded.samples) {
    if (!byName.has(s.metric)) byName.set(s.metric, []);
    byName.get(s.metric).push(s);
  }
  const describe = (name, samples) => {
    const def = recorded.metrics.get(name);
    if (!def) throw new ConfigError(`k6 double: threshold on unknown metric ${name}`);
    return {
      type: def.type,
      contains: def.isTime ? "time" : "default",
      values: metricValues(def.type, samples, stats, durationMs),
    };
  };
  for (const [name] of recorded.metrics) metrics[name] = describe(name, byName.get(name) ?? []);
  for (const [key, list] of Object.entries(options.thresholds ?? {})) {
    const { name, tags } = parseMetricKey(key);
    const samples = (byName.get(name) ?? []).filter((s) => Object.entries(tags).every(([k, v]) => s.tags[k] === v));
    // K6_NO_THRESHOLDS: the submetric exists but is not marked observed, so it is in the summary only
    // if it got samples, and its thresholds are not evaluated (internal/metrics/engine/engine.go:118-143).
    if (noThresholds) {
      if (samples.length > 0 && recorded.metrics.has(name)) metrics[key] = describe(name, samples);
      continue;
    }
    const entry = metrics[key] ?? describe(name, samples);
    entry.thresholds = {};
    for (const t of list) {
      const expr = typeof t === "string" ? t : t.threshold;
      const ok = evaluateThreshold(expr, entry.values, entry.type, key);
      entry.thresholds[expr] = { ok };
      if (!ok) thresholdsFailed = true;
    }
    metrics[key] = entry;
  }
  return { metrics, thresholdsFailed };
}

/**
 * k6 validates thresholds before the test runs: an unknown metric or an aggregation its type lacks
 * is a configuration error (exit 104). The runner calls this after init.
 */
export function checkThresholds(recorded, options) {
  for (const [key, list] of Object.entries(options.thresholds ?? {})) {
    const { name } = parseMetricKey(key);
    const def = recorded.metrics.get(name);
    if (!def) throw new ConfigError(`k6 double: threshold on unknown metric ${name}`);
    for (const t of list) parseThreshold(typeof t === "string" ? t : t.threshold, def.type, key);
  }
}
