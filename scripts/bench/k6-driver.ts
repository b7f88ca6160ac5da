// --driver k6: the same sessions run under k6 (scripts/driver/k6.ts runs `k6 run`). k6 cannot be
// installed on every machine, so its absence is a clear error before anything runs.
import { execFileSync } from "node:child_process";
import type { RunClients } from "./sessions.js";

export class DriverError extends Error {
  override readonly name = "DriverError";
}

/** Throws a DriverError unless `k6` runs from PATH. */
export function requireK6(): void {
  try {
    execFileSync("k6", ["version"], { stdio: "ignore", timeout: 10_000 });
  } catch {
    throw new DriverError("k6 not found on PATH; install k6 >= 1.6 or use --driver node");
  }
}

export const runClientsK6: RunClients = async () => {
  requireK6();
  throw new DriverError("--driver k6 is not wired to the bench yet; use --driver node");
};
