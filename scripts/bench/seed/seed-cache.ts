// A --ref variant's seeded templates, kept beside its build (refs/checkout-plan.ts templatesDirOf):
// one per fixture, with seed.json holding what the run needs from the seed (token, sequences,
// record), the key it was seeded under and the digest of its files. A kept template is reused only
// when its key matches and its files are as they were made; otherwise the run says why and seeds
// again. A cache that cannot be written costs only the reuse.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { removeDeadOwners, writeFileAtomic } from "../../../common/atomic-file.js";
import { templatesDirOf } from "../../refs/checkout-plan.js";
import type { LoadedBinding } from "../../seed/load-binding.js";
import type { ModuleFiles } from "../../seed/module-graph.js";
import { copyState, firstDifference, type StateEntry, stateEntries } from "../../seed/state-files.js";
import type { FixtureRef } from "../fixtures/fixtures.js";
import type { TargetSpec } from "../run/config.js";
import type { SeedResult } from "./seed-state.js";

/** How this harness seeds and what seed.json holds: a template made under another format is seeded again. */
const SEED_FORMAT = 2;

/** Everything besides the build and the fixture (the cache's folders) that decides a seeded state. */
export interface TemplateKey {
  format: number;
  /** The binding's module graph: each local module's digest, each imported package's version. */
  binding: ModuleFiles;
  /** --binding-option as given. */
  options: Readonly<Record<string, string>>;
  /** The server's start command (its {state}, {port} placeholders unfilled). */
  start: string;
}

export function templateKey(
  spec: Extract<TargetSpec, { kind: "command" }>,
  loaded: LoadedBinding,
  options: Readonly<Record<string, string>>,
): TemplateKey {
  return { format: SEED_FORMAT, binding: loaded.files, options, start: spec.command };
}

/** The kept template of a --ref variant for a fixture (null: a --target, which has no build to keep it beside). */
export function templateDirOf(spec: Extract<TargetSpec, { kind: "command" }>, fixture: FixtureRef): string | null {
  return spec.ref ? join(templatesDirOf(spec.ref.checkout), fixture.meta.contentSha256.slice(0, 16)) : null;
}

const differing = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): string[] =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();

/** What differs between the key a template was seeded under and this run's, one phrase each (empty: nothing). Pure. */
export function keyChanges(was: Partial<TemplateKey>, now: TemplateKey): string[] {
  if (was.format !== now.format) return ["an earlier version of catchup-bench"];
  const changes: string[] = [];
  const files = differing(was.binding ?? {}, now.binding);
  if (files.length > 0) {
    const named = files.length > 3 ? `${files.slice(0, 3).join(", ")} and ${files.length - 3} more` : files.join(", ");
    changes.push(`another binding (${named} changed)`);
  }
  const options = differing(was.options ?? {}, now.options);
  if (options.length > 0) changes.push(`another --binding-option (${options.join(", ")})`);
  if (was.start !== now.start) changes.push("another start command");
  return changes;
}

interface KeptSeed extends Omit<SeedResult, "template"> {
  key: TemplateKey;
}

/**
 * The kept template in `dir` when it was seeded under `key` and its files are as they were made;
 * else null, after saying why in one line (nothing kept there yet: nothing said).
 */
export function reusableTemplate(dir: string, key: TemplateKey, say: (why: string) => void): SeedResult | null {
  if (!existsSync(dir)) return null;
  const earlier = "the template from an earlier run";
  let kept: KeptSeed;
  try {
    kept = JSON.parse(readFileSync(join(dir, "seed.json"), "utf8")) as KeptSeed;
    if (!Number.isSafeInteger(kept.sequences?.latest) || !kept.record || !Array.isArray(kept.files)) throw new Error();
  } catch {
    say(`${earlier} has no readable seed.json: seeding again`);
    return null;
  }
  const changes = keyChanges(kept.key ?? {}, key);
  if (changes.length > 0) {
    say(`${earlier} was seeded with ${changes.join(", ")}: seeding again`);
    return null;
  }
  const state = join(dir, "state");
  let now: StateEntry[];
  try {
    now = stateEntries(state);
  } catch (e) {
    say(`${earlier} cannot be read (${(e as Error).message}): seeding again`);
    return null;
  }
  const diff = firstDifference(kept.files, now);
  if (diff !== null) {
    say(`${earlier} changed since it was made (${diff}): seeding again`);
    return null;
  }
  const { key: _, ...seed } = kept;
  return { ...seed, template: state, record: { ...seed.record, cached: true } };
}

/**
 * Keeps a --ref's template in `dir`: copied beside it as it is, checked, then one rename puts it in
 * place. Returns the result pointing at the kept copy; when the cache cannot be written, says so and
 * returns `r` as it was (this run uses its own seed).
 */
export function keepTemplate(r: SeedResult, key: TemplateKey, dir: string, warn: (why: string) => void): SeedResult {
  const parent = join(dirname(dir), "tmp");
  let tmp: string | null = null;
  try {
    mkdirSync(parent, { recursive: true });
    removeDeadOwners(parent, /^seed-(\d+)-/); // a harness killed mid-copy left its folder
    tmp = mkdtempSync(join(parent, `seed-${process.pid}-`));
    copyState(r.template, join(tmp, "state"));
    const diff = firstDifference(r.files, stateEntries(join(tmp, "state")));
    if (diff !== null) throw new Error(`the copy differs from the seed (${diff})`);
    const { template: _, ...seed } = r;
    const kept: KeptSeed = { ...seed, key };
    writeFileAtomic(join(tmp, "seed.json"), `${JSON.stringify(kept, null, 2)}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    return { ...r, template: join(dir, "state") };
  } catch (e) {
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 0 });
    warn(`cannot keep the template in ${dir} (${(e as Error).message}): it is seeded again on the next run`);
    return r;
  }
}
