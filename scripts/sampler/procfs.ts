// Linux /proc readers: which process in a tree owns a listening socket, its ports, and the kernel's
// memory figures. The harness samples the process that owns the server's port, not the pid it spawned,
// because COMMAND may be a wrapper (`sh -c`, `npm run`, `npx`). Reads are synchronous and small.
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { isAlive } from "../../common/process-alive.js";

// Liveness is read from /proc too; it is defined beside the fixture generator, which needs it as well.
export { isAlive };

export class ProcError extends Error {
  override readonly name = "ProcError";
}

export interface ListeningSocket {
  /** Local address as text: "127.0.0.1", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1", ... */
  address: string;
  port: number;
  family: 4 | 6;
  inode: number;
  /** True for 127.0.0.0/8, ::1 and ::ffff:127.x.x.x. */
  loopback: boolean;
}

const TCP_LISTEN = "0A";

/** Inodes of the sockets PID has open (from /proc/PID/fd links "socket:[INODE]"). */
export function socketInodes(pid: number): Set<number> {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (e) {
    throw new ProcError(`cannot read /proc/${pid}/fd: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const inodes = new Set<number>();
  for (const fd of fds) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed between readdir and readlink
    }
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m?.[1]) inodes.add(Number(m[1]));
  }
  return inodes;
}

/** Decodes /proc/net/tcp's little-endian hex IPv4 address. */
function ipv4FromHex(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].join(".");
}

/** Decodes /proc/net/tcp6's address: four 32-bit words, each little-endian. */
function ipv6FromHex(hex: string): string {
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    for (let b = 3; b >= 0; b--) bytes.push(Number.parseInt(word.slice(b * 2, b * 2 + 2), 16));
  }
  const isMapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (isMapped) return `::ffff:${bytes.slice(12).join(".")}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // Compress the longest run of zero groups, as RFC 5952 prints it.
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

function isLoopback(address: string): boolean {
  return address.startsWith("127.") || address === "::1" || address.startsWith("::ffff:127.");
}

/** Parses the text of /proc/net/tcp or tcp6 into its LISTEN sockets. Pure; exported for tests. */
export function parseListeningSockets(text: string, family: 4 | 6): ListeningSocket[] {
  const out: ListeningSocket[] = [];
  for (const line of text.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== TCP_LISTEN) continue;
    const [addrHex, portHex] = (f[1] ?? "").split(":");
    if (!addrHex || !portHex) continue;
    const address = family === 4 ? ipv4FromHex(addrHex) : ipv6FromHex(addrHex);
    out.push({
      address,
      port: Number.parseInt(portHex, 16),
      family,
      inode: Number(f[9]),
      loopback: isLoopback(address),
    });
  }
  return out;
}

/** TCP LISTEN sockets owned (open) by PID, from /proc/PID/fd and PID's own network namespace tables. */
export function listeningSockets(pid: number): ListeningSocket[] {
  const inodes = socketInodes(pid);
  if (inodes.size === 0) return [];
  const out: ListeningSocket[] = [];
  for (const [file, family] of [
    ["tcp", 4],
    ["tcp6", 6],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${file}`, "utf8");
    } catch {
      continue; // no IPv6 in this kernel, or the process just exited
    }
    for (const s of parseListeningSockets(text, family)) if (inodes.has(s.inode)) out.push(s);
  }
  return out;
}

/** Distinct TCP ports PID listens on. */
export function listeningPorts(pid: number): number[] {
  return [...new Set(listeningSockets(pid).map((s) => s.port))].sort((a, b) => a - b);
}

/** A process as /proc/PID/stat shows it: its state ("Z" for a zombie), parent and process group. */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

/** Every process, from /proc/*\/stat; one that ends while being read is left out. */
export function procStats(): ProcStat[] {
  const out: ProcStat[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    // After "(comm) " (the command name may contain spaces and parens): state ppid pgrp ...
    const [state = "", ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.push({ pid: Number(name), state, ppid: Number(ppid), pgrp: Number(pgrp) });
  }
  return out;
}

/** The children of every process. */
function parentMap(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of procStats()) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  return children;
}

/** All live descendants of PID (children first, breadth-first), not including PID. */
export function descendants(pid: number): number[] {
  const children = parentMap();
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift() as number;
    for (const c of children.get(p) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/** The process in rootPid's tree (rootPid first, then breadth-first) holding a LISTEN socket on port; null if none. */
export function listeningPidNow(rootPid: number, port: number): number | null {
  for (const pid of [rootPid, ...descendants(rootPid)]) {
    try {
      if (listeningSockets(pid).some((s) => s.port === port)) return pid;
    } catch {
      // exited during the scan
    }
  }
  return null;
}

export interface FindListeningPidOptions {
  /** Deadline (ms). Default 10,000. */
  timeoutMs?: number;
  /** Pause between scans (ms). Default 20. */
  pollMs?: number;
}

/**
 * Waits until a process in rootPid's tree (including rootPid) owns a LISTEN socket on port, and
 * returns its pid: the real server behind `sh -c`, `npm run`, `npx`. When several share the socket
 * (inherited), the one closest to the root wins. Rejects if rootPid exits or after timeoutMs.
 */
export async function findListeningPid(
  rootPid: number,
  port: number,
  options: FindListeningPidOptions = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 20;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = listeningPidNow(rootPid, port);
    if (found !== null) return found;
    if (!isAlive(rootPid))
      throw new ProcError(`process ${rootPid} exited before any process in its tree listened on port ${port}`);
    if (performance.now() >= deadline) {
      throw new ProcError(`no process in the tree of pid ${rootPid} listened on port ${port} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(1, deadline - performance.now()))));
  }
}

/** /proc/PID/status as key → raw value text ("VmHWM" → "12345 kB"). */
export function readProcStatus(pid: number): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch (e) {
    throw new ProcError(
      `cannot read /proc/${pid}/status: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return out;
}

function kbField(pid: number, key: string): number | null {
  const v = readProcStatus(pid).get(key);
  if (v === undefined) return null; // kernel threads and zombies have no Vm* lines
  const m = /^(\d+)\s*kB$/.exec(v);
  return m?.[1] ? Number(m[1]) * 1024 : null;
}

/** The kernel's peak resident set size of PID (VmHWM), in bytes; null for a zombie. Throws if PID is gone. */
export function readVmHwm(pid: number): number | null {
  return kbField(pid, "VmHWM");
}

/** The current resident set size of PID (VmRSS), in bytes; null for a zombie. Throws if PID is gone. */
export function readVmRss(pid: number): number | null {
  return kbField(pid, "VmRSS");
}

/**
 * Resets PID's VmHWM to its current RSS (writes "5" to /proc/PID/clear_refs, Linux ≥ 4.0), so the
 * next readVmHwm covers only what happened since — not the process's startup peak. Throws if not allowed.
 */
export function resetVmHwm(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch (e) {
    throw new ProcError(
      `cannot reset VmHWM of pid ${pid}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

const AT_PAGESZ = 6;
let pageBytes: number | null = null;

/** The kernel's page size (bytes), from this process's auxiliary vector; /proc/PID/statm counts pages. */
export function pageSize(): number {
  if (pageBytes !== null) return pageBytes;
  let found = 4096;
  try {
    const auxv = readFileSync("/proc/self/auxv");
    const wide = process.arch.endsWith("64");
    const step = wide ? 16 : 8;
    for (let i = 0; i + step <= auxv.length; i += step) {
      const key = wide ? Number(auxv.readBigUInt64LE(i)) : auxv.readUInt32LE(i);
      const value = wide ? Number(auxv.readBigUInt64LE(i + 8)) : auxv.readUInt32LE(i + 4);
      if (key === AT_PAGESZ) {
        found = value;
        break;
      }
      if (key === 0) break; // AT_NULL ends the vector
    }
  } catch {
    // no auxv: 4 KiB, the page size of every common Linux target
  }
  pageBytes = found;
  return found;
}

/**
 * How far an RSS reading can top a later VmHWM (bytes). The kernel keeps RSS in per-CPU counters,
 * /proc shows their approximate sum (each of the three RSS counters may lag by 32 pages per CPU), and
 * it raises VmHWM lazily, from that same approximate sum.
 */
export function rssCounterSlackBytes(): number {
  return 3 * 32 * availableParallelism() * pageSize();
}

/** Parses the resident field (the second) of a /proc/PID/statm line into bytes. Pure; exported for tests. */
export function statmResidentBytes(text: string, page: number): number | null {
  const m = /^\d+ (\d+) /.exec(text);
  return m?.[1] ? Number(m[1]) * page : null;
}

export interface RssReader {
  /** The current RSS of the pid (bytes). Throws a ProcError once the process is gone. */
  read(): number;
  close(): void;
}

/**
 * Opens /proc/PID/statm once and re-reads it at offset 0 on every read(): one pread of a few dozen
 * bytes, no open/close per sample, so a 1 ms cadence stays cheap. Throws if PID is gone.
 */
export function openRssReader(pid: number): RssReader {
  const path = `/proc/${pid}/statm`;
  let fd: number | null;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw new ProcError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const page = pageSize();
  const buf = Buffer.alloc(256);
  return {
    read() {
      if (fd === null) throw new ProcError(`${path} is closed`);
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, 0);
      } catch (e) {
        throw new ProcError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      const bytes = statmResidentBytes(buf.toString("latin1", 0, n), page);
      // A zombie's statm reads as all zeros: nothing resident, the process is gone for our purpose.
      if (bytes === null || n === 0 || bytes === 0) throw new ProcError(`process ${pid} is gone (${path} is empty)`);
      return bytes;
    },
    close() {
      if (fd === null) return;
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      fd = null;
    },
  };
}

/** One RSS reading of pid (bytes), the file opened and closed around it. Throws a ProcError once pid is gone or has no memory. */
export function readRssOnce(pid: number): number {
  const reader = openRssReader(pid);
  try {
    return reader.read();
  } finally {
    reader.close();
  }
}
