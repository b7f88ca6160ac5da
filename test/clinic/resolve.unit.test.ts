// clinic.js is not installed with catchup-bench: `catchup-bench clinic` finds the user's copy, from
// their project or beside catchup-bench, and without one exits 2 with one line saying how to add it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolveClinicBin } from "../../scripts/clinic/resolve.js";
import { UsageError } from "../../scripts/util/usage.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const empty = mkdtempSync(join(tmpdir(), "catchup-no-clinic-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe("finding clinic.js", () => {
  it("takes the first folder that has it", () => {
    expect(resolveClinicBin([empty, ROOT])).toBe(join(ROOT, "node_modules", "clinic", "bin.js"));
  });

  it("is a usage error naming the install command where no folder has it", () => {
    expect(() => resolveClinicBin([empty])).toThrow(UsageError);
    expect(() => resolveClinicBin([empty])).toThrow(
      /^clinic\.js is not installed \(looked from .*catchup-no-clinic-.*\): add it to your project with npm install --save-dev clinic@13\.0\.0$/,
    );
  });
});
