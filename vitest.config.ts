import { defineConfig } from "vitest/config";

// Integration tests start real servers on loopback; two workers match the two cores here.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
