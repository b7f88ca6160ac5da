// The limits a storm runs into before the server's code does: open-file descriptors (each client
// holds one socket in the harness and one in the server) and the kernel's listen backlog. Stated
// before a storm starts; a storm that would exceed them is refused with one line naming the limit and
// how to raise it, rather than failing as a hang or a flood of EMFILE errors.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Descriptors a process keeps besides the storm's sockets (stdio, inspector, SQLite, pipes, the sampler). */
export const FD_HEADROOM = 64;

export interface StormLimits {
  /** The harness's soft RLIMIT_NOFILE (`ulimit -n`), null when unknown. */
  harnessNofile: number | null;
  /** Descriptors the harness already holds. */
  harnessOpenFds: number;
  /** The server's soft RLIMIT_NOFILE, from /proc/PID/limits; null before it runs or when unreadable. */
  serverNofile: number | null;
  /** Descriptors the server already holds. */
  serverOpenFds: number;
  /** net.core.somaxconn: the ceiling of any listen backlog; null when unreadable. */
  somaxconn: number | null;
  /** The backlog the server's listening socket has (ss's Send-Q; Node's default is 511); null when unknown. */
  serverBacklog?: number | null;
}

export class StormLimitError extends Error {
  override readonly name = "StormLimitError";
}

/** The soft "Max open files" of /proc/PID/limits text, or null ("unlimited" is Infinity). */
export function parseNofile(limitsText: string): number | null {
  const m = /^Max open files\s+(\S+)/m.exec(limitsText);
  if (!m?.[1]) return null;
  if (m[1] === "unlimited") return Number.POSITIVE_INFINITY;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n : null;
}

/** The soft descriptor limit of a process ("self" for this one), or null when /proc cannot say. */
export function readNofile(pid: number | "self"): number | null {
  try {
    return parseNofile(readFileSync(`/proc/${pid}/limits`, "utf8"));
  } catch {
    return null;
  }
}

export function openFds(pid: number | "self"): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

export function readSomaxconn(): number | null {
  try {
    const n = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8").trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

/** The backlog of the socket listening on `port` in `ss -Hltn` output (its Send-Q column), or null. */
export function parseSsBacklog(text: string, port: number): number | null {
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    // LISTEN RECV-Q SEND-Q LOCAL PEER
    if (f[0] === "LISTEN" && f[3]?.endsWith(`:${port}`)) {
      const n = Number(f[2]);
      if (Number.isInteger(n)) return n;
    }
  }
  return null;
}

/** The listen backlog on `port` through `ss` (iproute2), or null when ss is missing or says nothing. */
export function readListenBacklog(port: number): number | null {
  try {
    return parseSsBacklog(execFileSync("ss", ["-Hltn"], { encoding: "utf8", timeout: 2000 }), port);
  } catch {
    return null;
  }
}

/** The limits as they are now; serverPid null before a server runs (serverPort: its listening port). */
export function readLimits(serverPid: number | null, serverPort: number | null = null): StormLimits {
  return {
    serverBacklog: serverPort === null ? null : readListenBacklog(serverPort),
    harnessNofile: readNofile("self"),
    harnessOpenFds: openFds("self"),
    serverNofile: serverPid === null ? null : readNofile(serverPid),
    serverOpenFds: serverPid === null ? 0 : openFds(serverPid),
    somaxconn: readSomaxconn(),
  };
}

/** One line stating the limits a storm of `clients` meets. */
export function describeLimits(l: StormLimits): string {
  const n = (x: number | null) => (x === null ? "unknown" : x === Number.POSITIVE_INFINITY ? "unlimited" : String(x));
  const parts = [`harness fd limit ${n(l.harnessNofile)} (${l.harnessOpenFds} open)`];
  if (l.serverNofile !== null) parts.push(`server fd limit ${n(l.serverNofile)} (${l.serverOpenFds} open)`);
  if (l.serverBacklog != null) parts.push(`server listen backlog ${l.serverBacklog}`);
  parts.push(`listen backlog ceiling net.core.somaxconn ${n(l.somaxconn)}`);
  return parts.join(", ");
}

/**
 * Null when a storm of `clients` fits the limits, else the one line refusing it. Each client needs a
 * descriptor in the harness and one in the server, plus FD_HEADROOM each. With no ramp every connect
 * arrives at once, so more clients than the backlog ceiling would overflow it (dropped SYNs retried
 * after a second or more: a measurement of the kernel, not the server).
 */
export function checkStormLimits(clients: number, rampMs: number, l: StormLimits): string | null {
  const harnessNeed = l.harnessOpenFds + clients + FD_HEADROOM;
  if (l.harnessNofile !== null && harnessNeed > l.harnessNofile) {
    return `--storm ${clients} needs about ${harnessNeed} open files in the harness but its limit (ulimit -n) is ${l.harnessNofile}: raise it (ulimit -n ${nextPow2(harnessNeed)}, or LimitNOFILE/limits.conf) or storm fewer clients`;
  }
  const serverNeed = l.serverOpenFds + clients + FD_HEADROOM;
  if (l.serverNofile !== null && serverNeed > l.serverNofile) {
    return `--storm ${clients} needs about ${serverNeed} open files in the server but its limit (Max open files in /proc/PID/limits) is ${l.serverNofile}: raise the limit the server starts with (ulimit -n ${nextPow2(serverNeed)} before the bench) or storm fewer clients`;
  }
  // The kernel caps a socket's backlog at somaxconn; a full accept queue drops connects (SYN retries,
  // resets): a measurement of the kernel, not the server.
  if (rampMs === 0 && l.serverBacklog != null && clients > Math.min(l.serverBacklog, l.somaxconn ?? l.serverBacklog)) {
    const backlog = Math.min(l.serverBacklog, l.somaxconn ?? l.serverBacklog);
    return `--storm ${clients} with no ramp exceeds the server's listen backlog of ${backlog} (its listen() backlog, Node's default 511, capped by net.core.somaxconn): spread the connects with --storm-ramp-ms, or start the server with a larger backlog (the bundled server: bench --server-arg=--backlog=N)`;
  }
  if (rampMs === 0 && l.somaxconn !== null && clients > l.somaxconn) {
    return `--storm ${clients} with no ramp exceeds the listen backlog ceiling net.core.somaxconn=${l.somaxconn}: spread the connects with --storm-ramp-ms, or raise it (sysctl -w net.core.somaxconn=${nextPow2(clients)})`;
  }
  return null;
}

function nextPow2(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(2, n)));
}
