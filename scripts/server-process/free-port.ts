// The port a target is told to listen on ({port}). Chosen below the kernel's ephemeral range: a port
// from that range can be taken, before the target binds it, by any outgoing connection's local end,
// even by the readiness check's own connect to it (on loopback a connect to an unbound ephemeral port
// can connect to itself), and the target then fails to listen while "something" answers there.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

const LOWEST = 10_000;
/** Ports this process has handed out: never handed out twice (a target may still be starting on one). */
const handed = new Set<number>();

/** The first port of the kernel's ephemeral range (Linux's default 32768 when it cannot be read). */
export function ephemeralLow(
  read: () => string = () => readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8"),
): number {
  try {
    const low = Number(read().trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 && low < 65536 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Binds `port` on 127.0.0.1 (0: the kernel picks) and closes it; the port, or null when it is taken. */
async function tryBind(port: number): Promise<number | null> {
  const server = createServer();
  const result = await new Promise<number | null>((resolve) => {
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : null);
    });
  });
  if (server.listening) {
    server.close();
    await once(server, "close");
  }
  return result;
}

/** A free TCP port on 127.0.0.1 below the ephemeral range, not handed out before by this process. */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  if (high - LOWEST >= 1_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
      if (handed.has(port)) continue;
      if ((await tryBind(port)) !== null) {
        handed.add(port);
        return port;
      }
    }
  }
  // A machine whose ephemeral range starts low: the kernel's choice (a small race until the target binds).
  const port = await tryBind(0);
  if (port === null) throw new Error("no free TCP port on 127.0.0.1");
  handed.add(port);
  return port;
}
