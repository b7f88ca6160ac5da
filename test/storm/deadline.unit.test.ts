// A storm client's deadline is the storm's own (--storm-timeout-ms), not the bench's per-trial one:
// 500 clients at once share the server and all finish near the storm's end (about 41 s for legacy at
// 1 KiB on a quiet 2-core machine), so the 60 s trial deadline timed out most of them on a slower one.
// The deadline is recorded per row and stated in the report beside the timeouts it caused.
import { describe, expect, it } from "vitest";
import { DEFAULT_STORM_TIMEOUT_MS } from "../../scripts/bench/run/config.js";
import { stormSessionSpec } from "../../scripts/bench/storm/storm-cells.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { stormMarkdown } from "../../scripts/report/storm-section.js";
import { stormRow } from "../../scripts/storm/row.js";

describe("the storm's session deadline", () => {
  it("is --storm-timeout-ms (default 300 s), whatever --trial-timeout-ms says", () => {
    const c = resolveConfig({ storm: [500], "trial-timeout-ms": 60_000 });
    expect(c.storm.timeoutMs).toBe(DEFAULT_STORM_TIMEOUT_MS);
    expect(DEFAULT_STORM_TIMEOUT_MS).toBe(300_000);
    const spec = stormSessionSpec(c, { url: "ws://127.0.0.1:1/ws", token: "t" }, 1000);
    expect(spec.timeoutMs).toBe(300_000);
    expect(c.protocol.trialTimeoutMs).toBe(60_000);
    const set = resolveConfig({ storm: [500], "storm-timeout-ms": 90_000 });
    expect(stormSessionSpec(set, { url: "ws://127.0.0.1:1/ws", token: "t" }, 1000).timeoutMs).toBe(90_000);
  });

  it("is stated in the report beside the clients that ran past it", () => {
    const base = { clients: 4, scriptBytes: 1024, rampMs: 0, resumeRatio: 1, trial: 1, sessionTimeoutMs: 90_000 };
    const failures = { "upgrade-refused": 0, timeout: 3, "closed-early": 0, other: 0 };
    const figures = {
      clients: 4,
      ok: 1,
      failed: 3,
      failures,
      completionMsP50: 80_000,
      completionMsP99: 80_000,
      completionMsMax: 80_000,
      allCaughtUpMs: null,
    };
    const rows = [
      stormRow({ ...base, variant: "legacy" }, figures, {}),
      stormRow({ ...base, variant: "batched" }, figures, {}),
    ];
    const md = stormMarkdown(rows, { baseline: "legacy", candidate: "batched" }).join("\n");
    expect(md).toContain("| 3 timeout → 3 timeout |");
    expect(md).toContain("Session deadline: 90 s from each client's connect (--storm-timeout-ms)");
    // A run from before the option says it did not record one, rather than guessing.
    const old = rows.map(({ sessionTimeoutMs: _, ...r }) => r);
    expect(stormMarkdown(old, null).join("\n")).toContain("Session deadline: not recorded");
  });
});
