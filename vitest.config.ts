import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import PlainSummaryReporter from "./test/support/plain-summary-reporter.js";

// Two tiers: "unit" runs the pure tests (files named *.unit.test.ts: no processes, no sockets) on
// their own in seconds; "e2e" starts real servers, benches and children from dist/, so its global
// setup compiles the sources first and a test never runs stale code.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One worker per core: an e2e test's server, bench and clients share the machine with the others.
    maxWorkers: availableParallelism(),
    reporters: ["default", new PlainSummaryReporter()],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.unit.test.ts"] } },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.unit.test.ts"],
          globalSetup: ["test/support/build-once.ts"],
        },
      },
    ],
  },
});
