// Where clinic.js is: clinic is an inspection aid the measurement never uses, so catchup-bench does
// not install it for everyone (it brings ~680 packages); `catchup-bench clinic` finds the user's own
// copy, resolved from their project first, then beside catchup-bench (an optional peer dependency).
import { createRequire } from "node:module";
import { join } from "node:path";
import { UsageError } from "../util/usage.js";

/** The clinic version the runner is written against (its tools' stop behaviour was checked on 13). */
export const CLINIC_VERSION = "13.0.0";

/** The clinic CLI's path, from the first folder whose module resolution finds it; a usage error if none does. */
export function resolveClinicBin(fromDirs: readonly string[]): string {
  for (const dir of fromDirs) {
    try {
      return createRequire(join(dir, "package.json")).resolve("clinic/bin.js");
    } catch {
      // not installed there: try the next folder
    }
  }
  throw new UsageError(
    `clinic.js is not installed (looked from ${fromDirs.join(", ")}): add it to your project with npm install --save-dev clinic@${CLINIC_VERSION}`,
  );
}
