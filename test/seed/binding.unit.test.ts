// The load phase's pure parts: the --binding flags and their rules, the contract check of a module,
// and the check of a seeded server's snapshot against the fixture.
import { describe, expect, it } from "vitest";
import type { TargetSpec } from "../../scripts/bench/config.js";
import { checkAgainstFixture } from "../../scripts/bench/seed-state.js";
import { bindingFromFlags, bindingOptions } from "../../scripts/options/binding.js";
import { contractGaps } from "../../scripts/seed/load-binding.js";
import { usageError } from "../support/usage-error.js";

const foreign = (command: string): TargetSpec => ({ name: "app", kind: "command", command });
const bundled: TargetSpec = { name: "legacy", kind: "bundled", delivery: "legacy", serverArgs: [] };

describe("--binding-option", () => {
  it("takes KEY=VALUE pairs, the value as given (it may hold = and spaces)", () => {
    expect(bindingOptions(["node=/opt/node 24/bin/node", "x=a=b", "empty="])).toEqual({
      node: "/opt/node 24/bin/node",
      x: "a=b",
      empty: "",
    });
  });

  it("refuses a pair without =, a bad key, and a key given twice", () => {
    expect(usageError(() => bindingOptions(["node"]))).toMatch(/--binding-option must be KEY=VALUE .*got "node"/);
    expect(usageError(() => bindingOptions(["=x"]))).toMatch(/got "=x"/);
    expect(usageError(() => bindingOptions(["a=1", "a=2"]))).toBe("--binding-option a is given twice");
  });
});

describe("--binding with the targets", () => {
  const flags = { binding: "t3code" };
  it("needs a foreign server whose start command takes {state}", () => {
    expect(bindingFromFlags({}, flags, [foreign("srv --data {state} --port {port}")])).toEqual({
      module: "t3code",
      options: {},
    });
    expect(usageError(() => bindingFromFlags({}, flags, [bundled]))).toMatch(/seeds foreign servers/);
    expect(usageError(() => bindingFromFlags({}, flags, [foreign("srv --db {db}")]))).toMatch(
      /the start command of app has no \{state\}/,
    );
  });

  it("refuses --cursor/--latest beside it, and --binding-option or {state} without it", () => {
    const t = [foreign("srv {state}")];
    expect(usageError(() => bindingFromFlags({}, {}, t))).toMatch(
      /the start command of app takes \{state\}.*--binding/,
    );
    expect(bindingFromFlags({}, {}, [foreign("srv {db}")])).toEqual({ module: null, options: {} });
    expect(usageError(() => bindingFromFlags({ cursor: 5 }, flags, t))).toMatch(/--cursor goes without --binding/);
    expect(usageError(() => bindingFromFlags({}, { "binding-option": ["a=1"] }, t))).toBe(
      "--binding-option goes with --binding",
    );
  });
});

describe("a binding module's contract", () => {
  const ok = { name: "n", kinds: ["project"], write: () => 1, summarize: () => ({}) };
  it("is kept by a module with name, kinds, write and summarize (prepare and exclude optional)", () => {
    expect(contractGaps(ok)).toEqual([]);
    expect(contractGaps({ ...ok, prepare: async () => undefined, exclude: ["logs"] })).toEqual([]);
  });

  it("names each member missing or of the wrong kind", () => {
    expect(contractGaps(undefined)).toEqual(["a default export that is an object"]);
    expect(contractGaps({ name: "", kinds: ["shell"], prepare: 1, exclude: "logs" })).toEqual([
      "name (a non-empty string)",
      'kinds (a non-empty array of "project" and/or "thread")',
      "prepare (a function, when present)",
      "write(event, ctx) (a function)",
      "summarize(items) (a function)",
      "exclude (an array of paths, when present)",
    ]);
  });
});

describe("the seeded server's snapshot against the fixture", () => {
  const fail = (why: string): never => {
    throw new Error(why);
  };
  const want = { projects: 1000, scriptBytes: 1_024_000 };
  it("passes when projects, script bytes and sequence agree", () => {
    expect(() =>
      checkAgainstFixture({ projects: 1000, scriptBytes: 1_024_000, sequence: 2000 }, want, 2000, fail),
    ).not.toThrow();
  });

  it("names the first disagreement", () => {
    const check = (got: { projects: number; scriptBytes: number; sequence: number }) => () =>
      checkAgainstFixture(got, want, 2000, fail);
    expect(check({ projects: 999, scriptBytes: 0, sequence: 0 })).toThrow(
      "the server's snapshot holds 999 projects, the fixture 1000",
    );
    expect(check({ projects: 1000, scriptBytes: 1_023_999, sequence: 2000 })).toThrow(
      "the server's snapshot holds 1023999 bytes of scripts, the fixture 1024000",
    );
    expect(check({ projects: 1000, scriptBytes: 1_024_000, sequence: 1999 })).toThrow(
      "the server's snapshot is at sequence 1999, its last write was 2000",
    );
  });
});
