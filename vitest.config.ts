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
    // One worker per core and one more: e2e tests spend much of their time waiting (held ACKs, server
    // starts, timeouts), which left a third of 2 cores idle at one worker per core.
    maxWorkers: availableParallelism() + 1,
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
