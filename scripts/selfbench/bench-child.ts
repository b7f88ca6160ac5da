// A bench run as the self-benchmarks start it: the CLI of a built checkout as a child process, its
// results.json read back, its folder removed. Killed when this process exits.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Results } from "../results/schema.js";
import { withTimeout } from "../util/timeout.js";

const RUN_TIMEOUT_MS = 30 * 60_000;

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

/** Runs `bench ...args` of the checkout at root to its end; its results and wall time (ms). Exit 0 or 1 (a guard) counts as run. */
export async function runBenchChild(root: string, args: string[]): Promise<{ results: Results; wallMs: number }> {
  const out = mkdtempSync(join(tmpdir(), "catchup-selfbench-"));
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, "bin/catchup-bench.js"), "bench", ...args, "--out", out], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const code = await withTimeout(
    new Promise<number | null>((done) => child.once("exit", (c) => done(c))),
    RUN_TIMEOUT_MS,
    `the bench run of ${root}`,
  );
  children.delete(child);
  const wallMs = performance.now() - t0;
  try {
    if (code !== 0 && code !== 1) throw new Error(`the bench run of ${root} exited ${code}:\n${stderr}`);
    return { results: JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results, wallMs };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
