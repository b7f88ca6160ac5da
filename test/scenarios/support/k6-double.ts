// Test support: run a scenario file under the k6 test double (TEST AID; real runs use k6), in its
// own Node process as k6 would run it, and a fake `k6` executable that does the same for the driver.
import { chmodSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { runNode } from "../../support/child.js";
import { ROOT } from "../../support/server.js";

export const DOUBLE_REGISTER = join(ROOT, "test/k6-double/register.js");
export const DOUBLE_RUN = join(ROOT, "test/k6-double/run.js");

export interface DoubleRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `k6 run -e K=V ... scenarios/<script>` (or an absolute path) under the double; rejects after timeoutMs. */
export async function runUnderDouble(
  script: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<DoubleRun> {
  const args = ["--import", DOUBLE_REGISTER, DOUBLE_RUN, "run", "--quiet"];
  for (const [k, v] of Object.entries(env)) args.push("-e", `${k}=${v}`);
  args.push(isAbsolute(script) ? script : join(ROOT, "scenarios", script));
  const run = await runNode(args, { cwd: ROOT, timeoutMs, label: `${script} under the k6 double` });
  return { code: run.code, stdout: run.stdout, stderr: run.stderr };
}

/** Writes an executable `k6` into dir that runs the double, so the k6 driver can be tested end to end. */
export function writeFakeK6(dir: string): string {
  const path = join(dir, "k6");
  writeFileSync(
    path,
    `#!/bin/sh\n# TEST AID: stands in for k6, running the scenario under the k6 double.\nexec "${process.execPath}" --import "${DOUBLE_REGISTER}" "${DOUBLE_RUN}" "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}
