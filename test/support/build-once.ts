// Global setup of the integration project: compile the sources into dist/ before any test spawns
// them, so `vitest run` after an edit tests the edited code. tsc is incremental enough at this size
// (a few seconds); a compile error stops the run with the compiler's own message.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: root, stdio: "inherit", timeout: 300_000 });
  // The bundled server's one-module build, as `npm run build` makes it (server-under-test/bundle.mjs).
  execFileSync(process.execPath, ["server-under-test/bundle.mjs"], { cwd: root, stdio: "inherit", timeout: 120_000 });
  // The harness's commit, as `npm run build` records it (scripts/build-info.mjs).
  execFileSync(process.execPath, ["scripts/build-info.mjs"], { cwd: root, stdio: "inherit", timeout: 60_000 });
}
