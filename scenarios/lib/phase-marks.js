// Wall-clock phase marks of a runner's sessions, for lining the load up with a sampling agent's
// memory timeline on another host (`catchup-bench sample`, `report --merge --samples`). Each phase a
// session reaches adds Date.now() (epoch ms) to that phase's Trend; k6's summary then gives, per
// runner, when the first session reached it (min), when the last did (max), and how many did
// (count): the moments the bench marks in its own samples ("connect" and "first-chunk" when the
// first client got there, the others when every client had). Pure apart from the clock passed in.

/** The phases marked, in the order a session reaches them. */
export const PHASE_MARKS = /** @type {const} */ (["connect", "first-chunk", "completion", "hold-end", "close"]);

/** @param {string} phase */
const metricName = (phase) => `catchup_wall_${phase.replace("-", "_")}`;

/**
 * @typedef {{ add(value: number, tags?: Record<string, string>): void }} MetricLike
 * @typedef {Record<string, MetricLike>} PhaseMetrics
 * @typedef {{ first: number, last: number, count: number }} PhaseMark
 */

/**
 * One Trend per phase; like every k6 metric, created at module top level (the init context).
 * @param {{ Trend: new (name: string, isTime?: boolean) => MetricLike }} k6
 * @returns {PhaseMetrics}
 */
export function createPhaseMetrics({ Trend }) {
  /** @type {PhaseMetrics} */
  const out = {};
  for (const p of PHASE_MARKS) out[p] = new Trend(metricName(p));
  return out;
}

/**
 * The session's onPhase listener: records the wall-clock moment of each marked phase.
 * @param {PhaseMetrics} metrics
 * @param {() => number} [wallNow]
 * @returns {(name: string) => void}
 */
export function phaseRecorder(metrics, wallNow = Date.now) {
  return (name) => metrics[name]?.add(wallNow());
}

/**
 * Each phase's first and last wall-clock moment and count, from k6 summary data; null for a phase
 * no session reached (or a script that does not mark phases).
 * @param {{ metrics?: Record<string, { values?: Record<string, number | null | undefined> } | undefined> }} data
 * @returns {Record<string, PhaseMark | null>}
 */
export function phasesFromSummary(data) {
  /** @type {Record<string, PhaseMark | null>} */
  const out = {};
  for (const p of PHASE_MARKS) {
    const v = data.metrics?.[metricName(p)]?.values;
    const ok =
      v && typeof v.min === "number" && typeof v.max === "number" && typeof v.count === "number" && v.count > 0;
    out[p] = ok
      ? {
          first: /** @type {number} */ (v.min),
          last: /** @type {number} */ (v.max),
          count: /** @type {number} */ (v.count),
        }
      : null;
  }
  return out;
}

/**
 * The same marks without k6 (the Node driver): a listener for every session's onPhase, and the
 * per-phase first, last and count of what it heard, as phasesFromSummary gives them for a runner.
 * @param {() => number} [wallNow]
 * @returns {{ onPhase: (name: string) => void, marks: () => Record<string, PhaseMark | null> }}
 */
export function phaseMarkCollector(wallNow = Date.now) {
  /** @type {Record<string, PhaseMark | null>} */
  const out = {};
  for (const p of PHASE_MARKS) out[p] = null;
  return {
    onPhase(name) {
      if (!(name in out)) return;
      const t = wallNow();
      const m = out[name];
      out[name] = m
        ? { first: Math.min(m.first, t), last: Math.max(m.last, t), count: m.count + 1 }
        : { first: t, last: t, count: 1 };
    },
    marks: () => ({ ...out }),
  };
}
