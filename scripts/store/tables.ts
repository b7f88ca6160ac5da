// The history store's tables as Kysely sees them (one interface per table). SQLite by default, the
// same schema on PostgreSQL for a team store: columns use types both have (integer, bigint, text,
// double precision) and booleans are 0/1 integers. Bytes and milliseconds, as in results.json.
import type { Generated } from "kysely";

/** What a run was for: a history record against an anchor, a plain compare, a confirmation or a bisection step. */
export const RUN_KINDS = ["record", "compare", "confirm", "bisect"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** Triage states of a suspect commit, kept across recomputes of the change points. */
export const TRIAGE_STATES = ["acknowledged", "hidden"] as const;
export type TriageState = (typeof TRIAGE_STATES)[number];

/** A machine as its stable facts describe it (never its clock speed): runs on one testbed compare. */
export interface TestbedTable {
  id: Generated<number>;
  /** sha256 of the stable fields below (testbed.ts). */
  fingerprint: string;
  cpu_model: string;
  cores: number;
  /** Total memory rounded to MiB; null when the run did not record it (older results). */
  memory_bytes: number | null;
  node: string;
  /** os.release(); null when the run did not record it. */
  kernel: string | null;
  first_seen: string;
}

export interface CommitTable {
  sha: string;
  /** The first parent; null for a root commit or when the repository was not at hand. */
  parent: string | null;
  /** Committer time, seconds since the epoch. */
  time: number | null;
  /** Position along the first-parent chain (`git rev-list --first-parent --count`): orders a series. */
  ord: number | null;
  subject: string | null;
}

export interface RunTable {
  id: Generated<number>;
  /** Digest of the run's content (runs, variants, rows): importing the same run twice finds it. */
  uid: string;
  kind: RunKind;
  branch: string | null;
  /** The baseline variant's commit (the anchor of a record run). */
  base_sha: string | null;
  /** The candidate variant's commit: the commit a record run measured. */
  head_sha: string | null;
  /** What ratios are to: a record run's anchor (its baseline); null when the variants are not commits. */
  anchor_sha: string | null;
  testbed_id: number;
  /** Digest of the measured configuration (cases, trials, fixtures, protocol; not paths or refs). */
  config_digest: string;
  started_at: string;
  finished_at: string | null;
  /** Where it came from (a results.json path). */
  source: string | null;
  interrupted: number;
  /** 1: left out of series and detection (a disturbed or broken run), with the reason. */
  excluded: number;
  exclude_reason: string | null;
  added_at: string;
}

export interface CellTable {
  id: Generated<number>;
  /** "latency" or "memory". */
  matrix: string;
  /** The cell as results.json names it: "resume-many", "8192x4/memory". */
  name: string;
}

/** One metric of one cell of one run: the figures and the verdict results.json kept. */
export interface ResultTable {
  id: Generated<number>;
  run_id: number;
  cell_id: number;
  metric: string;
  unit: string;
  pairs: number;
  planned_pairs: number;
  /** Medians of the baseline's (the anchor's) and the candidate's own figures, in `unit`. */
  base_estimate: number | null;
  estimate: number | null;
  /** 95% bootstrap interval of the candidate's median. */
  estimate_low: number | null;
  estimate_high: number | null;
  /** Median paired ratio candidate/baseline (to the anchor for a record run) and its 95% interval. */
  ratio: number | null;
  ratio_low: number | null;
  ratio_high: number | null;
  aa_low: number | null;
  aa_high: number | null;
  /** The cell verdict as results.json keeps it (pass, fail, noise, lower, higher, ...). */
  verdict: string;
  /** The three-way outcome (DIFFERENT, SAME, UNKNOWN) once runs carry one; null before. */
  outcome: string | null;
  reason: string;
}

/** A raw trial figure (prunable: results keep the estimates). */
export interface SampleTable {
  id: Generated<number>;
  run_id: number;
  cell_id: number;
  metric: string;
  /** "base" or "head". */
  role: string;
  trial: number;
  value: number;
}

/** A change point as the last detection found it (all of them replaced on every recompute). */
export interface ChangePointTable {
  id: Generated<number>;
  cell_id: number;
  metric: string;
  testbed_id: number;
  branch: string;
  /** The anchor the series' ratios are to (after linking). */
  anchor_sha: string;
  /** The first commit of the new level (the suspect) and the last of the old one. */
  commit_sha: string;
  stable_sha: string;
  p_value: number;
  /** log(after / before) of the series' medians on either side. */
  magnitude: number;
  before: number;
  after: number;
  /** "regression" (higher) or "improvement" (lower): every figure here is better lower. */
  direction: string;
  computed_at: string;
}

/** What a person decided about a suspect commit; survives recomputes. */
export interface TriageTable {
  id: Generated<number>;
  commit_sha: string;
  branch: string;
  testbed_id: number;
  state: TriageState;
  note: string | null;
  at: string;
}

/** A bisection of a range (good, bad]: one per range, testbed and configuration; resumed from its steps. */
export interface BisectionTable {
  id: Generated<number>;
  good_sha: string;
  bad_sha: string;
  branch: string;
  testbed_id: number;
  config_digest: string;
  /** "running" until it ends, then "done". */
  status: string;
  /** DIFFERENT (culprits named), SAME (nothing changed in the range) or UNKNOWN; null while running. */
  outcome: string | null;
  /** JSON: the culprits found, each with its paired ratio and interval per changed metric. */
  culprits: string | null;
  started_at: string;
  finished_at: string | null;
}

/** One paired comparison a bisection made, at the pairs that decided it (or the cap). */
export interface BisectionStepTable {
  id: Generated<number>;
  bisection_id: number;
  /** The order the steps were taken in, from 1. */
  ord: number;
  base_sha: string;
  head_sha: string;
  outcome: string;
  pairs: number;
  /** The last run of the step (earlier tries with fewer pairs are runs of their own). */
  run_id: number | null;
  /** JSON: the outcome per cell and metric with ratio and interval. */
  detail: string;
  at: string;
}

/** A change point re-measured paired, last stable commit against suspect: kept whatever the outcome. */
export interface ConfirmationTable {
  id: Generated<number>;
  branch: string;
  testbed_id: number;
  stable_sha: string;
  commit_sha: string;
  /** DIFFERENT: confirmed; SAME: a false alarm; UNKNOWN: still undecided at the cap of pairs. */
  outcome: string;
  pairs: number;
  run_id: number | null;
  detail: string;
  /** JSON list of culprit commits, once a bisection from this change point found them. */
  culprits: string | null;
  bisection_id: number | null;
  at: string;
}

export interface HistoryDatabase {
  testbed: TestbedTable;
  commit: CommitTable;
  run: RunTable;
  cell: CellTable;
  result: ResultTable;
  sample: SampleTable;
  change_point: ChangePointTable;
  triage: TriageTable;
  bisection: BisectionTable;
  bisection_step: BisectionStepTable;
  confirmation: ConfirmationTable;
}
