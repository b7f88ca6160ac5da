// What a target runs on: the executable of the process that listens (/proc/PID/exe) and, when it is
// a Node binary, its version (`<exe> --version`, run once per executable, off the event loop: the
// sampler may be running). A report then names the targets' Node, not the harness's.
import { execFile } from "node:child_process";
import { readlinkSync } from "node:fs";
import { basename } from "node:path";

export interface TargetRuntime {
  /** The executable's path, or null when /proc could not say (the process was gone). */
  exe: string | null;
  /** "v24.22.3" for a Node binary; null for another runtime or when it could not be asked. */
  node: string | null;
}

const VERSION_TIMEOUT_MS = 5000;
const versions = new Map<string, Promise<string | null>>();

/** Only a binary named like Node is asked for its version: `--version` may mean anything to another. */
export const looksLikeNode = (exe: string): boolean => /^(node|nodejs)(\d+(\.\d+)*)?$/.test(basename(exe));

function nodeVersion(exe: string): Promise<string | null> {
  let v = versions.get(exe);
  if (!v) {
    v = new Promise((resolve) => {
      // Without NODE_OPTIONS: the harness's (or a target's --inspect) must not apply to this probe.
      const env = { ...process.env };
      delete env.NODE_OPTIONS;
      execFile(exe, ["--version"], { timeout: VERSION_TIMEOUT_MS, env }, (err, stdout) => {
        const m = /^v\d+\.\d+\.\d+\S*/.exec(String(stdout).trim());
        resolve(err || !m ? null : m[0]);
      });
    });
    versions.set(exe, v);
  }
  return v;
}

/** The runtime of process pid (never rejects). */
export async function targetRuntime(pid: number): Promise<TargetRuntime> {
  let exe: string;
  try {
    exe = readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, "");
  } catch {
    return { exe: null, node: null };
  }
  return { exe, node: looksLikeNode(exe) ? await nodeVersion(exe) : null };
}
