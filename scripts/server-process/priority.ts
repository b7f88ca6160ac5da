// A process's scheduling priority (nice value), thread by thread: on Linux a nice value belongs to a
// thread, and a thread starts with its creator's. A server started ahead of its trial runs at the
// lowest priority (19) while another trial is measured, so its start-up takes only CPU time nobody
// else wants; it gets the normal priority (0) back when its own trial begins. Raising a priority
// needs CAP_SYS_NICE (root): canRestorePriority() says whether this process has it.
import { readdirSync } from "node:fs";
import { setPriority } from "node:os";

/** The lowest priority: a thread at nice 19 gets about 1/70 of the CPU a thread at nice 0 gets. */
export const IDLE_NICE = 19;

/** Sets one process's (main thread's) nice value; false when it is gone or not permitted. */
export function setNice(pid: number, nice: number): boolean {
  try {
    setPriority(pid, nice);
    return true;
  } catch {
    return false;
  }
}

/** Sets every thread of pid to nice (threads started later inherit their creator's); false if none could be. */
export function setThreadsNice(pid: number, nice: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return setNice(pid, nice);
  }
  let all = tids.length > 0;
  for (const tid of tids) all = setNice(Number(tid), nice) && all;
  return all;
}

/** Whether a priority lowered to IDLE_NICE can be raised back to 0 here (root, or CAP_SYS_NICE). */
export function canRestorePriority(): boolean {
  return process.getuid?.() === 0;
}
