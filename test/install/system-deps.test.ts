// README's test command on a machine without Debian's chromium: `npm test` first runs its pretest
// (.ci/system-deps), which installs what is missing where it can (root with apt-get) and otherwise
// says in one line what is missing and how to install it. The machine's chromium is hidden from the
// step in a mount namespace of its own (the tests run as root); apt-get is the real one.
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runChild } from "../support/child.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** `npm run pretest` with these files hidden (each covered by /dev/null: not executable, so not there). */
const pretestWithout = (hidden: string[]) =>
  runChild(
    "unshare",
    [
      "--mount",
      "bash",
      "-c",
      `${hidden.map((f) => `mount --bind /dev/null ${f} && `).join("")}npm run --silent pretest`,
    ],
    { timeoutMs: 300_000, cwd: ROOT },
  );

describe("npm test on a machine without chromium", () => {
  it("installs it first as root with apt-get", async () => {
    const r = await pretestWithout(["/usr/bin/chromium"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(
      "npm test: installing chromium (apt-get; the HTML-report, storm and team-store tests need them)",
    );
  }, 320_000);

  it("says in one line what is missing and how to install it where it cannot, and lets the tests run", async () => {
    const r = await pretestWithout(["/usr/bin/chromium", "/usr/bin/apt-get"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(
      "npm test: chromium missing and not installable here (needs root and apt-get): install Debian's chromium (apt-get install chromium), or the HTML-report, storm and team-store tests fail",
    );
  });

  it("names postgresql when its server programs are missing", async () => {
    const initdb = readdirSync("/usr/lib/postgresql").map((v) => `/usr/lib/postgresql/${v}/bin/initdb`);
    const r = await pretestWithout([...initdb.filter((f) => existsSync(f)), "/usr/bin/apt-get"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(
      "npm test: postgresql missing and not installable here (needs root and apt-get): install Debian's postgresql (apt-get install postgresql), or the HTML-report, storm and team-store tests fail",
    );
  });
});
