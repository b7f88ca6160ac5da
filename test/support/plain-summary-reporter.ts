// A vitest reporter that ends the run with one plain line, "N passed, N failed, N skipped", which CI
// log readers recognise in any language (vitest's own summary is coloured and multi-column).
import type { Reporter, TestModule } from "vitest/node";

export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") count.passed++;
        else if (state === "failed") count.failed++;
        else count.skipped++;
      }
      // A file that failed to load has no tests but is a failure.
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) count.failed++;
    }
    process.stdout.write(`\nvitest: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  }
}
