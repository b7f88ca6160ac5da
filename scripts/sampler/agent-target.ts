// Which process the standalone agent (`catchup-bench sample`) samples, and through which inspector:
// a pid given, or the owner of a listening port on this host (any process tree, unlike the bench,
// which searches only the tree it spawned); the inspector given by port, found through /proc, or
// none (RSS only). Every refusal is an AgentTargetError whose message names the flag.
import { connectInspector, findInspector, type InspectorClient, listInspectorTargets } from "./inspector.js";
import { isAlive, listeningSockets, procStats, readRssOnce } from "./procfs.js";

export class AgentTargetError extends Error {
  override readonly name = "AgentTargetError";
}

/**
 * The process owning a TCP LISTEN socket on port, among every process this user can read. When
 * several share it (a forking server), the one whose parent does not also hold it. Null if none.
 */
export function portOwner(port: number): number | null {
  const stats = procStats();
  const holders = new Set<number>();
  for (const { pid } of stats) {
    if (pid === process.pid) continue;
    try {
      if (listeningSockets(pid).some((s) => s.port === port)) holders.add(pid);
    } catch {
      // another user's process (its fds are not readable) or gone meanwhile
    }
  }
  const ppid = new Map(stats.map((s) => [s.pid, s.ppid]));
  const roots = [...holders].filter((p) => !holders.has(ppid.get(p) ?? -1)).sort((a, b) => a - b);
  return roots[0] ?? null;
}

/** The pid to sample from --pid or --port (exactly one). */
export function agentPid(pid: number | undefined, port: number | undefined): number {
  if ((pid === undefined) === (port === undefined)) {
    throw new AgentTargetError("give exactly one of --pid PID or --port PORT (the server's listening port)");
  }
  if (pid !== undefined) {
    if (pid === process.pid) throw new AgentTargetError(`--pid ${pid} is this agent's own process: give the server's`);
    if (!isAlive(pid)) throw new AgentTargetError(`--pid ${pid}: no such process on this host`);
    try {
      readRssOnce(pid);
    } catch {
      throw new AgentTargetError(
        `--pid ${pid}: has no memory to sample (a kernel thread, or a process that has exited)`,
      );
    }
    return pid;
  }
  const owner = portOwner(port as number);
  if (owner === null) {
    throw new AgentTargetError(
      `--port ${port}: no process this user can read listens on TCP port ${port} on this host`,
    );
  }
  return owner;
}

/**
 * The inspector of pid: on inspectPort when given (it must be pid's own, checked through
 * process.pid), else found among pid's loopback listening ports within findMs, else null.
 */
export async function agentInspector(
  pid: number,
  options: { inspectPort?: number; serverPort?: number; findMs?: number },
): Promise<InspectorClient | null> {
  const port = options.inspectPort;
  if (port === undefined) {
    try {
      return await findInspector(pid, {
        excludePorts: options.serverPort === undefined ? [] : [options.serverPort],
        timeoutMs: options.findMs ?? 1_500,
      });
    } catch {
      return null; // no inspector: RSS only, and the output says so
    }
  }
  let client: InspectorClient;
  try {
    const [first] = await listInspectorTargets(port, { timeoutMs: 3_000 });
    if (!first) throw new Error("it lists no target");
    client = await connectInspector(first.webSocketDebuggerUrl, { timeoutMs: 3_000 });
  } catch (e) {
    throw new AgentTargetError(`--inspect-port ${port}: not a Node inspector on 127.0.0.1 (${(e as Error).message})`);
  }
  let remote: number | null = null;
  try {
    remote = await client.evaluate<number>("process.pid", 3_000);
  } catch {
    // left null: refused below
  }
  if (remote !== pid) {
    await client.close(1_000);
    throw new AgentTargetError(
      `--inspect-port ${port} is the inspector of pid ${remote ?? "(unknown)"}, not of the sampled pid ${pid}`,
    );
  }
  return client;
}
