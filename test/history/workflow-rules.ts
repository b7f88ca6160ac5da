// Test aid: actionlint's rules that can be checked without actionlint (it cannot run here), over a
// GitHub Actions workflow parsed by a real YAML parser: the file's shape, jobs and steps, actions
// pinned to a version, expressions closed and naming known contexts, `steps.X` naming an earlier
// step's id, `needs` naming a job, permissions with allowed values. Returns the problems found.
const TOP = new Set(["name", "run-name", "on", "permissions", "env", "defaults", "concurrency", "jobs"]);
const EVENTS = new Set([
  "push",
  "pull_request",
  "pull_request_target",
  "workflow_dispatch",
  "schedule",
  "release",
  "workflow_run",
]);
const JOB = new Set([
  "name",
  "if",
  "runs-on",
  "needs",
  "permissions",
  "env",
  "steps",
  "timeout-minutes",
  "concurrency",
  "outputs",
  "strategy",
  "continue-on-error",
  "defaults",
  "environment",
  "services",
  "container",
]);
const STEP = new Set([
  "id",
  "name",
  "if",
  "uses",
  "run",
  "with",
  "env",
  "shell",
  "working-directory",
  "continue-on-error",
  "timeout-minutes",
]);
const CONTEXTS = new Set([
  "github",
  "env",
  "vars",
  "secrets",
  "steps",
  "needs",
  "runner",
  "inputs",
  "matrix",
  "job",
  "strategy",
]);
const SCOPES = new Set([
  "actions",
  "checks",
  "contents",
  "deployments",
  "id-token",
  "issues",
  "packages",
  "pages",
  "pull-requests",
  "repository-projects",
  "security-events",
  "statuses",
  "attestations",
  "discussions",
]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every `${{ ... }}` in a string: its inside, or a problem when one is not closed. */
function expressions(text: string, where: string, problems: string[]): string[] {
  const out: string[] = [];
  let i = text.indexOf("${{");
  while (i >= 0) {
    const end = text.indexOf("}}", i);
    if (end < 0) {
      problems.push(`${where}: unclosed \${{`);
      break;
    }
    out.push(text.slice(i + 3, end).trim());
    i = text.indexOf("${{", end);
  }
  return out;
}

/** Checks one expression's context names (and step ids it reads). */
function checkExpression(expr: string, where: string, stepIds: ReadonlySet<string>, problems: string[]): void {
  for (const m of expr.matchAll(/(?<![\w.'-])([a-z][\w-]*)\s*(?=\.)/g)) {
    if (!CONTEXTS.has(m[1] as string)) problems.push(`${where}: unknown context "${m[1]}" in \${{ ${expr} }}`);
  }
  for (const m of expr.matchAll(/\bsteps\.([\w-]+)\./g)) {
    if (!stepIds.has(m[1] as string)) problems.push(`${where}: steps.${m[1]} is no earlier step's id`);
  }
  const quotes = (expr.match(/'/g) ?? []).length;
  if (quotes % 2 !== 0) problems.push(`${where}: unbalanced quotes in \${{ ${expr} }}`);
}

/** Every string in a value, with a path for messages. */
function strings(v: unknown, path: string): [string, string][] {
  if (typeof v === "string") return [[path, v]];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${path}[${i}]`));
  if (isObj(v)) return Object.entries(v).flatMap(([k, x]) => strings(x, `${path}.${k}`));
  return [];
}

function checkPermissions(p: unknown, where: string, problems: string[]): void {
  if (p === undefined || p === "read-all" || p === "write-all") return;
  if (!isObj(p)) return void problems.push(`${where}.permissions: must be a map or read-all/write-all`);
  for (const [scope, level] of Object.entries(p)) {
    if (!SCOPES.has(scope)) problems.push(`${where}.permissions: unknown scope "${scope}"`);
    if (!["read", "write", "none"].includes(String(level)))
      problems.push(`${where}.permissions.${scope}: "${level}" is not read, write or none`);
  }
}

function checkStep(step: unknown, where: string, ids: Set<string>, problems: string[]): void {
  if (!isObj(step)) return void problems.push(`${where}: a step must be a map`);
  for (const k of Object.keys(step)) if (!STEP.has(k)) problems.push(`${where}: unknown key "${k}"`);
  const uses = step.uses;
  const run = step.run;
  if ((uses === undefined) === (run === undefined)) problems.push(`${where}: needs exactly one of uses and run`);
  if (typeof uses === "string" && !/^[\w.-]+\/[\w./-]+@[\w.-]+$/.test(uses) && !uses.startsWith("./")) {
    problems.push(`${where}: action "${uses}" is not pinned to a version (owner/repo@ref)`);
  }
  if (run !== undefined && (typeof run !== "string" || run.trim() === ""))
    problems.push(`${where}: run must be a non-empty script`);
  if (step.with !== undefined && uses === undefined)
    problems.push(`${where}: "with" is for a step that uses an action`);
  for (const [path, text] of strings(step, where)) {
    for (const e of expressions(text, path, problems)) checkExpression(e, path, ids, problems);
  }
  if (typeof step.if === "string" && !step.if.includes("${{")) checkExpression(step.if, `${where}.if`, ids, problems);
  if (typeof step.id === "string") {
    if (ids.has(step.id)) problems.push(`${where}: step id "${step.id}" is not unique`);
    ids.add(step.id);
  }
}

export function workflowProblems(doc: unknown): string[] {
  const problems: string[] = [];
  if (!isObj(doc)) return ["the workflow is not a map"];
  for (const k of Object.keys(doc)) if (!TOP.has(k)) problems.push(`unknown top-level key "${k}"`);
  const on = doc.on;
  const events = typeof on === "string" ? [on] : Array.isArray(on) ? on.map(String) : isObj(on) ? Object.keys(on) : [];
  if (events.length === 0) problems.push("no trigger (on:)");
  for (const e of events) if (!EVENTS.has(e)) problems.push(`unknown event "${e}"`);
  checkPermissions(doc.permissions, "workflow", problems);
  for (const [path, text] of strings(doc.concurrency, "concurrency")) {
    for (const e of expressions(text, path, problems)) checkExpression(e, path, new Set(), problems);
  }
  const jobs = doc.jobs;
  if (!isObj(jobs) || Object.keys(jobs).length === 0) return [...problems, "no jobs"];
  for (const [name, job] of Object.entries(jobs)) {
    const where = `jobs.${name}`;
    if (!/^[A-Za-z_][\w-]*$/.test(name)) problems.push(`${where}: a job id must start with a letter or _`);
    if (!isObj(job)) {
      problems.push(`${where}: must be a map`);
      continue;
    }
    for (const k of Object.keys(job)) if (!JOB.has(k)) problems.push(`${where}: unknown key "${k}"`);
    if (job["runs-on"] === undefined) problems.push(`${where}: no runs-on`);
    const needs = typeof job.needs === "string" ? [job.needs] : Array.isArray(job.needs) ? job.needs.map(String) : [];
    for (const n of needs) if (!(n in jobs)) problems.push(`${where}: needs "${n}", which is no job`);
    checkPermissions(job.permissions, where, problems);
    if (typeof job.if === "string" && !job.if.includes("${{"))
      checkExpression(job.if, `${where}.if`, new Set(), problems);
    if (!Array.isArray(job.steps) || job.steps.length === 0) {
      problems.push(`${where}: no steps`);
      continue;
    }
    const ids = new Set<string>();
    for (const [i, s] of job.steps.entries()) checkStep(s, `${where}.steps[${i}]`, ids, problems);
  }
  return problems;
}

/** The `npx catchup-bench ...` command lines of the workflow's run scripts, continuation lines joined. */
export function catchupCommands(doc: unknown): string[][] {
  const scripts = strings(doc, "")
    .filter(([path]) => path.endsWith(".run"))
    .map(([, s]) => s.replace(/\\\n\s*/g, " "));
  const out: string[][] = [];
  for (const script of scripts) {
    for (const line of script.split("\n")) {
      const m = /npx catchup-bench (.*)$/.exec(line.trim());
      if (!m) continue;
      // Words as the shell splits them (quotes removed; a redirection ends the command).
      const words = [...(m[1] as string).matchAll(/"[^"]*"|'[^']*'|[^\s]+/g)].map((w) =>
        w[0].replace(/^["']|["']$/g, ""),
      );
      const end = words.findIndex((w) => w.startsWith(">"));
      out.push(end >= 0 ? words.slice(0, end) : words);
    }
  }
  return out;
}
