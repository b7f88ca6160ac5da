// Who is writing a run's journal. The run line of results.jsonl names the bench process (its pid and
// its start time, so a recycled pid is not taken for it): while that process lives the run is in
// progress, and `report` must neither call it "stopped hard" nor write into its folder.
import { readFileSync } from "node:fs";

export interface JournalOwner {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/PID/stat field 22). */
  startTicks: number | null;
}

function startTicksOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses): state is field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") return null; // exited, not yet collected
    const ticks = Number(fields[19]);
    return Number.isSafeInteger(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** This process, as the owner of a journal it is writing. */
export function currentOwner(): JournalOwner {
  return { pid: process.pid, startTicks: startTicksOf(process.pid) };
}

/** True while the process that wrote `owner` still runs (same pid, same start time). */
export function ownerAlive(owner: unknown): boolean {
  const o = owner as Partial<JournalOwner> | null;
  if (!o || !Number.isSafeInteger(o.pid) || (o.pid as number) <= 0 || o.pid === process.pid) return false;
  const ticks = startTicksOf(o.pid as number);
  return ticks !== null && (o.startTicks == null || ticks === o.startTicks);
}
