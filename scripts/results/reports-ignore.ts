// Run folders are generated: a reports/ folder the harness makes in a user's repository carries an
// ignore file of its own, so its runs stay out of `git status` without editing the user's .gitignore.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../common/atomic-file.js";

const IGNORE = `# catchup-bench's run folders (reports/<run>/): generated, so git ignores them. Delete this file to commit them.
*
`;

/** Writes `dir`/.gitignore when it has none; returns its path when written, else null. */
export function ignoreReports(dir: string): string | null {
  const file = join(dir, ".gitignore");
  if (existsSync(file)) return null;
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(file, IGNORE);
  return file;
}
