// One call for the harness: from the pid it spawned and the port it gave the target, the process to
// sample and a verified inspector session on it — whatever wrappers (sh -c, npm run, npx) sit between.
import { findInspector, type InspectorClient } from "./inspector.js";
import { findListeningPid } from "./procfs.js";

export interface LocatedTarget {
  /** The process owning the LISTEN socket on port (the real server). */
  pid: number;
  /** A connected inspector of that pid (verified by Runtime.evaluate("process.pid")). */
  inspector: InspectorClient;
}

/**
 * Waits for a process in rootPid's tree to listen on port, then finds its inspector through /proc
 * (never stderr, which a wrapper's own inspector banner may come first on). The target must run with
 * --inspect=127.0.0.1:0 (directly or via NODE_OPTIONS). One deadline covers both steps.
 */
export async function locateTarget(
  rootPid: number,
  port: number,
  options: { timeoutMs?: number } = {},
): Promise<LocatedTarget> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = performance.now() + timeoutMs;
  const pid = await findListeningPid(rootPid, port, { timeoutMs });
  const inspector = await findInspector(pid, {
    excludePorts: [port],
    timeoutMs: Math.max(1, deadline - performance.now()),
  });
  return { pid, inspector };
}
