// The system temp directory (TMPDIR) holds every run's scratch files: fixture copies, the fuzzer's
// fixture. One that is missing, a file, or not writable is a usage error said up front in one line,
// not a stack trace from mkdtemp halfway through a run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Why the temp directory cannot take scratch files, or null when it can (probed, then removed). */
export function tempDirProblem(dir = tmpdir()): string | null {
  try {
    rmSync(mkdtempSync(join(dir, ".catchup-probe-")), { recursive: true, force: true });
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return `the temp directory ${dir} (TMPDIR) must be a writable directory (${code}); set TMPDIR to one`;
  }
}
