import { defineConfig } from "vitest/config";
import PlainSummaryReporter from "./test/support/plain-summary-reporter.js";

// Integration tests start real servers on loopback; two workers match the two cores here.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    reporters: ["default", new PlainSummaryReporter()],
  },
});
