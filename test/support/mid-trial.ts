// Test support: SIGKILL a target server while one of its trials is certainly in flight. Progress
// lines ("[1/N]") are printed when a trial ENDS, so a kill on them alone can land between trials (the
// harness then restarts the server as an idle crash). A connection to the server's port that opens
// after the call is a trial's own session, and a slow one (long ACK delays) stays open for seconds.
import { readFileSync } from "node:fs";
import { listeningPorts } from "../../scripts/sampler/procfs.js";
import { waitUntil } from "../hardening/support/harness.js";

/** Remote ends ("addr:port" in /proc's hex) of the ESTABLISHED connections whose local port is `port`. */
export function establishedPeers(port: number): Set<string> {
  const peers = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      const [, local, remote, state] = line.trim().split(/\s+/);
      if (state === "01" && local && remote && Number.parseInt(local.split(":")[1] ?? "", 16) === port)
        peers.add(remote);
    }
  }
  return peers;
}

/**
 * SIGKILLs `pid` once a connection to `port` opens that was not open at the call. Returns false
 * (killing nothing) when none opens within timeoutMs.
 */
export async function killOnNewConnection(pid: number, port: number, timeoutMs: number): Promise<boolean> {
  const before = establishedPeers(port);
  const opened = await waitUntil(() => [...establishedPeers(port)].some((p) => !before.has(p)), timeoutMs);
  if (opened) process.kill(pid, "SIGKILL");
  return opened;
}

/** The one port a server listens on (latency targets run without an inspector); throws otherwise. */
export function onlyListeningPort(pid: number): number {
  const ports = listeningPorts(pid);
  if (ports.length !== 1) throw new Error(`process ${pid} listens on ${ports.length} ports (${ports.join(", ")})`);
  return ports[0] as number;
}
