// A testbed's fingerprint: the stable facts of a machine (CPU model, cores, memory, Node, kernel),
// never a clock speed or a load, so the same machine after a reboot is the same testbed.
import { createHash } from "node:crypto";

export interface TestbedFacts {
  cpuModel: string;
  cores: number;
  /** Total memory, bytes (rounded to MiB in the fingerprint); null when unknown. */
  memoryBytes: number | null;
  node: string;
  kernel: string | null;
}

const MIB = 1024 * 1024;

/** sha256 of the stable fields, in a fixed order. */
export function testbedFingerprint(t: TestbedFacts): string {
  const memoryMiB = t.memoryBytes === null ? null : Math.round(t.memoryBytes / MIB);
  const fields = [t.cpuModel.trim(), t.cores, memoryMiB, t.node, t.kernel];
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex");
}

/** "Intel Xeon … ×2, 7.8 GiB, Node v20.20.2, Linux 6.1.0": a testbed as pages name it. */
export function testbedText(t: TestbedFacts): string {
  const memory = t.memoryBytes === null ? "" : `, ${(t.memoryBytes / 1024 ** 3).toFixed(1)} GiB`;
  return `${t.cpuModel} ×${t.cores}${memory}, Node ${t.node}${t.kernel ? `, kernel ${t.kernel}` : ""}`;
}
