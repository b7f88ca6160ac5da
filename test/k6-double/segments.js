// TEST AID, not k6. Execution segments as k6 splits a test between instances (k6-operator's
// runners): the striping of VU ids and iteration numbers, and the scaling of VU counts. A port of
// k6's lib/execution_segment.go (v1.6.0 line numbers; the algorithm is unchanged in v2.2.0): NewExecutionSegmentSequenceWrapper
// (the striping algorithm, lines 490-575), ScaleInt64 (580), SegmentedIndex.Next (782) and
// GetNewExecutionSegmentSequenceFromValue (626). With 4 equal segments, the first runner's VUs are
// 1, 5, 9, ... in the whole test, not 1..N/4.

const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));

/** A fraction "n/d", "n" or "0.25" as [num, den] in lowest terms. */
export function parseFraction(text) {
  const t = String(text).trim();
  let num;
  let den;
  if (/^\d+\/\d+$/.test(t)) [num, den] = t.split("/").map(Number);
  else if (/^\d+(\.\d+)?$/.test(t)) {
    const decimals = (t.split(".")[1] ?? "").length;
    den = 10 ** decimals;
    num = Math.round(Number(t) * den);
  } else throw new Error(`k6 double: bad execution segment bound ${JSON.stringify(text)}`);
  if (den === 0 || num > den) throw new Error(`k6 double: execution segment bound ${text} is outside 0..1`);
  const g = gcd(num, den) || 1;
  return [num / g, den / g];
}

const sub = ([a, b], [c, d]) => {
  const n = a * d - c * b;
  const m = b * d;
  const g = gcd(Math.abs(n), m) || 1;
  return [n / g, m / g];
};
const cmp = ([a, b], [c, d]) => a * d - c * b;

/**
 * The filled segment sequence (k6's GetFilledExecutionSegmentSequence): the given sequence, or the
 * segment with the gaps around it filled, or the whole test.
 * @param {string | null} segment  "FROM:TO"
 * @param {string | null} sequence  "0,1/4,1/2,3/4,1"
 * @returns {{ bounds: Array<[number, number]>, index: number }}  sequence bounds and our segment's index
 */
export function segmentSequence(segment, sequence) {
  const seg = segment ? segment.split(":").map(parseFraction) : [parseFraction("0"), parseFraction("1")];
  if (seg.length !== 2 || cmp(seg[0], seg[1]) >= 0) {
    throw new Error(`k6 double: --execution-segment expects FROM:TO with FROM < TO (got ${segment})`);
  }
  let bounds = sequence ? sequence.split(",").map(parseFraction) : [...seg];
  if (cmp(bounds[0], [0, 1]) !== 0) bounds = [[0, 1], ...bounds];
  if (cmp(bounds.at(-1), [1, 1]) !== 0) bounds = [...bounds, [1, 1]];
  for (let i = 1; i < bounds.length; i++) {
    if (cmp(bounds[i - 1], bounds[i]) >= 0)
      throw new Error(`k6 double: execution segment sequence ${sequence} is not increasing`);
  }
  const index = bounds.findIndex(
    (b, i) => i < bounds.length - 1 && cmp(b, seg[0]) === 0 && cmp(bounds[i + 1], seg[1]) === 0,
  );
  if (index < 0) throw new Error(`k6 double: segment ${segment} is not in the sequence ${sequence}`);
  return { bounds, index };
}

/** The striped offsets of every segment (lib/execution_segment.go, NewExecutionSegmentSequenceWrapper). */
function stripe(lengths) {
  const lcd = lengths.reduce((acc, [, d]) => (acc * d) / gcd(acc, d), 1);
  const sorted = lengths
    .map(([n, d], originalIndex) => ({ norm: n * (lcd / d), originalIndex }))
    .sort((a, b) => b.norm - a.norm); // stable, biggest first, as sort.SliceStable there
  const offsets = lengths.map(() => []);
  const prev = lengths.map(() => 0);
  const chosen = lengths.map(() => 0);
  const save = (iteration, index, numerator) => {
    offsets[index].push(iteration - prev[index]);
    prev[index] = iteration;
    if (offsets[index].length === numerator) offsets[index].push(offsets[index][0] + lcd - iteration);
  };
  for (let i = 0; i < lcd; i++) {
    for (let s = 0; s < chosen.length; s++) {
      const num = chosen[s] * lcd;
      const denom = sorted[s].norm;
      const q = Math.floor(num / denom);
      if (i > q || (i === q && num % denom === 0)) {
        chosen[s]++;
        save(i, sorted[s].originalIndex, denom);
        break;
      }
    }
  }
  return { lcd, offsets };
}

/**
 * One instance's share of a test: `scale(n)` (ScaleInt64: how many of n VUs this instance gets) and
 * `indexes(count)` (the 0-based positions in the whole test of this instance's first `count`
 * elements: VU ids - 1, iteration numbers).
 */
export class Tuple {
  constructor(bounds, index) {
    this.bounds = bounds;
    this.index = index;
    const lengths = bounds.slice(1).map((b, i) => sub(b, bounds[i]));
    const { lcd, offsets } = stripe(lengths);
    this.lcd = lcd;
    this.start = offsets[index][0];
    this.offsets = offsets[index].slice(1);
    this.all = offsets;
  }

  scale(value) {
    let result = Math.floor(value / this.lcd) * this.offsets.length;
    for (let gi = 0, i = this.start; i < value % this.lcd; i += this.offsets[gi], gi++) result++;
    return result;
  }

  /** SegmentedIndex.Next, `count` times, minus one: 0-based global positions. */
  indexes(count) {
    const out = [];
    let unscaled = 0;
    for (let scaled = 0; scaled < count; scaled++) {
      unscaled += scaled === 0 ? this.start + 1 : this.offsets[(scaled - 1) % this.offsets.length];
      out.push(unscaled - 1);
    }
    return out;
  }

  /**
   * GetNewExecutionTupleFromValue(value): the sequence re-cut so that no segment is empty of
   * `value` (constant-arrival-rate re-segments by maxVUs); null when this segment gets none.
   */
  fromValue(value) {
    if (value % this.lcd === 0) return this;
    const whole = new Tuple(this.bounds, 0);
    const bounds = [[0, 1]];
    let prev = 0;
    let newIndex = -1;
    for (let i = 0; i < this.bounds.length - 1; i++) {
      whole.start = whole.all[i][0];
      whole.offsets = whole.all[i].slice(1);
      const n = whole.scale(value);
      if (n === 0) continue;
      prev += n;
      if (i === this.index) newIndex = bounds.length - 1;
      const g = gcd(prev, value);
      bounds.push([prev / g, value / g]);
    }
    return newIndex < 0 ? null : new Tuple(bounds, newIndex);
  }
}

/** The tuple of `--execution-segment` / `--execution-segment-sequence` (both optional). */
export function executionTuple(segment, sequence) {
  const { bounds, index } = segmentSequence(segment, sequence);
  return new Tuple(bounds, index);
}
