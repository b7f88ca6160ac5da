// The shape of a results file as the reports read it, checked once on load (pure): a hand-edited or
// damaged file is refused with one line naming the field and its value ("run.loadAverage[2] is
// "x": expected a number") instead of failing somewhere inside the renderer with a stack.
// Durations must be real measurements: finite, not negative, at most MAX_MS.
import { MEMORY_ROUNDS_WHY } from "../results/schema.js";

/** The longest duration a results file can hold (11.6 days): anything longer is no measurement. */
export const MAX_MS = 1e9;

type Check = (v: unknown) => string | null; // what was expected, or null when v fits

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str: Check = (v) => (typeof v === "string" ? null : "a string");
const bool: Check = (v) => (typeof v === "boolean" ? null : "true or false");
const num: Check = (v) => (typeof v === "number" && Number.isFinite(v) ? null : "a finite number");
const count: Check = (v) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? null : "a number >= 0");
const ms: Check = (v) =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_MS ? null : `a duration from 0 to ${MAX_MS} ms`;
const orNull =
  (c: Check): Check =>
  (v) =>
    v === null ? null : c(v) && `${c(v)} or null`;

/** The value as the one line shows it: JSON, clipped. */
function shown(v: unknown): string {
  const text = v === undefined ? "missing" : (JSON.stringify(v) ?? String(v));
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

class Bad {
  constructor(readonly line: string) {}
}

function need(path: string, v: unknown, c: Check): void {
  const expected = c(v);
  if (expected) throw new Bad(`has ${path} = ${shown(v)}: expected ${expected}`);
}

function fields(path: string, o: Record<string, unknown>, spec: Record<string, Check>, optional = false): void {
  for (const [key, c] of Object.entries(spec)) {
    if (optional && o[key] === undefined) continue;
    need(`${path}.${key}`, o[key], c);
  }
}

function object(path: string, v: unknown): Record<string, unknown> {
  if (!isObj(v)) throw new Bad(`has ${path} = ${shown(v)}: expected an object`);
  return v;
}

function array(path: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new Bad(`has ${path} = ${shown(v)}: expected an array`);
  return v;
}

/** A latency or memory row: by field name, every duration (…Ms) and every size or count checked. */
function row(path: string, v: unknown): void {
  const r = object(path, v);
  fields(path, r, { variant: str, ok: bool, trial: count, error: orNull(str) });
  for (const [key, value] of Object.entries(r)) {
    const at = `${path}.${key}`;
    if (value === null || value === undefined) continue;
    if (/Ms(Max)?$/.test(key)) {
      // An interval summary ({median, p99, max}) or a lag summary ({p50, p99, max}): each part a duration.
      if (isObj(value)) for (const [k, x] of Object.entries(value)) need(`${at}.${k}`, x, ms);
      else need(at, value, ms);
    } else if (key.startsWith("retained"))
      need(at, value, num); // post-GC minus baseline: may be < 0
    else if (/Bytes$|^bytes|^(chunks|values|clients|rssSamples|heapSamples)$/.test(key)) need(at, value, count);
    else if (key === "case" || key === "mode") need(at, value, str);
    else if (key === "samplesFile") need(at, value, str);
    else if (key === "rssSplit") rssSplit(at, value);
  }
}

const SPLIT_PARTS = ["rss", "heapUsed", "heapTotal", "external", "arrayBuffers", "remainder"] as const;

/** A memory row's RSS split: every part a number (the remainder may be < 0). */
function rssSplit(path: string, v: unknown): void {
  const s = object(path, v);
  fields(path, s, { samples: count, remainderMin: num, negativeRemainders: count });
  for (const part of ["peak", "atRssPeak"] as const) {
    const p = object(`${path}.${part}`, s[part]);
    fields(`${path}.${part}`, p, Object.fromEntries(SPLIT_PARTS.map((k) => [k, num])));
  }
}

/** --attribute's rows: what the report reads of each site. */
function attribution(path: string, v: unknown): void {
  const a = object(path, v);
  fields(path, a, { intervalBytes: count });
  const list = array(`${path}.rows`, a.rows);
  for (let i = 0; i < list.length; i++) {
    const at = `${path}.rows[${i}]`;
    const r = object(at, list[i]);
    fields(at, r, { variant: str, mode: str, kind: str, ok: bool, scriptBytes: count, clients: count, taken: str });
    fields(at, r, { peakHeapBytes: orNull(count), sampledBytes: orNull(count), heapAtProfileBytes: orNull(count) });
    const sites = array(`${at}.sites`, r.sites);
    for (let j = 0; j < sites.length; j++) {
      const st = object(`${at}.sites[${j}]`, sites[j]);
      need(`${at}.sites[${j}].bytes`, st.bytes, count);
      for (const f of ["frame", "caller"] as const) {
        if (f === "caller" && st.caller === null) continue;
        const fr = object(`${at}.sites[${j}].${f}`, st[f]);
        fields(`${at}.sites[${j}].${f}`, fr, { functionName: str, url: str, line: count });
      }
    }
  }
}

const why: Check = (v) =>
  typeof v === "string" && (MEMORY_ROUNDS_WHY as readonly string[]).includes(v)
    ? null
    : `one of ${MEMORY_ROUNDS_WHY.join(", ")}`;

/** Sequential rounds (memory or latency): the budget line and each cell's pairs and why it stopped. */
function memoryRounds(path: string, v: unknown): void {
  const m = object(path, v);
  fields(path, m, { budgetSeconds: count, spentSeconds: count, targetPairs: count });
  const cells = array(`${path}.cells`, m.cells);
  for (let i = 0; i < cells.length; i++) {
    const at = `${path}.cells[${i}]`;
    fields(at, object(at, cells[i]), { cell: str, pairs: count, why });
  }
}

function rows(path: string, v: unknown): void {
  const list = array(path, v);
  for (let i = 0; i < list.length; i++) row(`${path}[${i}]`, list[i]);
}

function crash(path: string, v: unknown): void {
  const c = object(path, v);
  fields(path, c, {
    variant: str,
    matrix: str,
    at: str,
    during: str,
    code: orNull(num),
    signal: orNull(str),
    stderrTail: str,
  });
  fields(path, c, { aa: bool }, true);
  const affects = array(`${path}.affects`, c.affects);
  for (let i = 0; i < affects.length; i++) need(`${path}.affects[${i}]`, affects[i], str);
}

/** What is wrong with a parsed results file (after its schema tag was checked), or null. */
export function resultsSchemaProblem(value: unknown): string | null {
  try {
    const results = object("the file", value);
    const run = object("run", results.run);
    fields("run", run, { startedAt: str, node: str, cpuModel: str, cores: count, gitCommit: orNull(str) });
    fields("run", run, { finishedAt: orNull(str), interrupted: bool, stopReason: orNull(str), projectRoot: str }, true);
    const load = array("run.loadAverage", run.loadAverage);
    for (let i = 0; i < load.length; i++) need(`run.loadAverage[${i}]`, load[i], num);
    if (run.config !== undefined) object("run.config", run.config);
    const variants = array("variants", results.variants);
    for (let i = 0; i < variants.length; i++) {
      const at = `variants[${i}]`;
      fields(at, object(at, variants[i]), { name: str, kind: str, command: str, role: str });
    }
    rows("latency", results.latency);
    rows("memory", results.memory);
    if (results.aa !== undefined) {
      const aa = object("aa", results.aa);
      rows("aa.latency", aa.latency);
      rows("aa.memory", aa.memory);
    }
    if (results.targetCrashes !== undefined) {
      const crashes = array("targetCrashes", results.targetCrashes);
      for (let i = 0; i < crashes.length; i++) crash(`targetCrashes[${i}]`, crashes[i]);
    }
    if (results.attribution !== undefined) attribution("attribution", results.attribution);
    if (results.memoryRounds !== undefined && results.memoryRounds !== null)
      memoryRounds("memoryRounds", results.memoryRounds);
    if (results.latencyRounds !== undefined && results.latencyRounds !== null)
      memoryRounds("latencyRounds", results.latencyRounds);
    for (const part of ["leak", "storm"] as const) {
      if (results[part] === undefined) continue;
      const list = array(part, results[part]);
      for (let i = 0; i < list.length; i++) fields(`${part}[${i}]`, object(`${part}[${i}]`, list[i]), { variant: str });
    }
    return null;
  } catch (e) {
    if (e instanceof Bad) return e.line;
    throw e;
  }
}
