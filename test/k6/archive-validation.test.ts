// `k6 archive`-level validation of every script in scenarios/ under the k6 double (a TEST AID: k6
// cannot be installed here), which validates scenarios with k6's own rules (test/k6-double/
// executors.js): each script at its defaults, and every `k6 run` example in docs/scenarios-and-k6.md.
// storm.js once defaulted to a constant-arrival-rate of duration "1ms", which k6 refuses.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/server.js";
import { runDouble, SCENARIOS_DIR } from "./support.js";

const work = mkdtempSync(join(tmpdir(), "catchup-k6-archive-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const URL = "ws://127.0.0.1:9/ws";
const scripts = readdirSync(SCENARIOS_DIR).filter((f) => f.endsWith(".js"));

/** The docs' `k6 run -e K=V ... scenarios/X.js` lines, as [script, env]. */
function docExamples(): Array<[string, Record<string, string>]> {
  const docs = readFileSync(join(ROOT, "docs/scenarios-and-k6.md"), "utf8");
  const out: Array<[string, Record<string, string>]> = [];
  for (const line of docs.split("\n")) {
    const m = /^k6 run ((?:-e \S+\s+)+)scenarios\/(\w+\.js)/.exec(line.trim());
    if (!m?.[1] || !m[2]) continue;
    const env: Record<string, string> = {};
    for (const kv of m[1]
      .trim()
      .split(/\s+/)
      .filter((t) => t !== "-e")) {
      const i = kv.indexOf("=");
      env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    out.push([m[2], { ...env, URL }]);
  }
  return out;
}

async function archive(script: string, env: Record<string, string>) {
  const out = join(work, `${script}-${Object.keys(env).length}-${Math.random().toString(36).slice(2)}.tar`);
  const run = await runDouble(script, { command: "archive", env, args: ["-O", out] });
  return { ...run, out };
}

describe("k6 archive of every scenario", () => {
  it("finds the scripts and the docs' examples", () => {
    expect(scripts).toEqual(expect.arrayContaining(["storm.js", "scaleout.js", "thread.js"]));
    expect(docExamples().length).toBeGreaterThanOrEqual(8);
  });

  it.each(scripts)("%s at its defaults passes k6's validation", async (script) => {
    const run = await archive(script, { URL });
    expect(run.stderr).not.toMatch(/problems with the specified script configuration/);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(run.out).size).toBeGreaterThan(1024);
  });

  it.each(docExamples())("the docs' example %s %j passes k6's validation", async (script, env) => {
    const run = await archive(script, env);
    expect(run.code, run.stderr).toBe(0);
  });

  it("the double refuses what k6 refuses: a constant-arrival-rate shorter than 1s (exit 104, k6's words)", async () => {
    const path = join(work, "short.js");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      path,
      'export const options = { scenarios: { s: { executor: "constant-arrival-rate", rate: 5, timeUnit: "1ms", duration: "1ms", preAllocatedVUs: 5, maxVUs: 4 } } };\nexport default function () {}\n',
    );
    const run = await archive(path, {});
    expect(run.code).toBe(104);
    expect(run.stderr).toMatch(
      /scenario s has configuration errors: the duration must be at least 1s, but is 1ms, maxVUs can't be less than preAllocatedVUs/,
    );
  });
});
