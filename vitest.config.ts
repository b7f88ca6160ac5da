import { defineConfig } from "vitest/config";
import PlainSummaryReporter from "./test/support/plain-summary-reporter.js";

// Two projects: "unit" runs the pure tests (files named *.unit.test.ts: no processes, no sockets) on
// their own in seconds; "integration" starts real servers and children from dist/, so its global
// setup compiles the sources first and a test never runs stale code.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real servers on loopback; two workers match the two cores here.
    maxWorkers: 2,
    reporters: ["default", new PlainSummaryReporter()],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.unit.test.ts"] } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.unit.test.ts"],
          globalSetup: ["test/support/build-once.ts"],
        },
      },
    ],
  },
});
