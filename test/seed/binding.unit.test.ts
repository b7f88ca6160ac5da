// The load phase's pure parts: the --binding flags and their rules, the contract check of a module,
// and the check of a seeded server's snapshot against the fixture.
import { describe, expect, it } from "vitest";
import { recordedConfig, type TargetSpec } from "../../scripts/bench/run/config.js";
import { checkAgainstFixture } from "../../scripts/bench/seed/seed-state.js";
import { bindingFromFlags, bindingOptions } from "../../scripts/options/binding.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { checkBindingOptions, contractGaps } from "../../scripts/seed/load-binding.js";
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

describe("--binding-timeout-ms", () => {
  it("is recorded in results.json's config, as the binding and its options are", () => {
    const c = resolveConfig({
      target: ["app=srv --data {state} --port {port}"],
      binding: "t3code",
      "binding-timeout-ms": "5000",
    });
    expect(recordedConfig(c)).toMatchObject({ binding: "t3code", bindingOptions: {}, bindingTimeoutMs: 5000 });
  });
});

describe("--seed-window", () => {
  const target = ["app=srv --data {state} --port {port}"];
  it("is 16 writes in flight unless given, and is recorded in results.json's config", () => {
    expect(resolveConfig({ target, binding: "t3code" }).binding.window).toBe(16);
    const c = resolveConfig({ target, binding: "t3code", "seed-window": "1" });
    expect(recordedConfig(c)).toMatchObject({ seedWindow: 1 });
  });

  it("refuses a window outside 1–256 naming the flag and the allowed values, and one without --binding", () => {
    expect(usageError(() => resolveConfig({ target, binding: "t3code", "seed-window": "0" }))).toMatch(
      /--seed-window.*1.*256/,
    );
    expect(usageError(() => resolveConfig({ target, binding: "t3code", "seed-window": "257" }))).toMatch(
      /--seed-window.*1.*256/,
    );
    expect(usageError(() => bindingFromFlags({ "seed-window": 4 }, { "seed-window": 4 }, [foreign("srv {db}")]))).toBe(
      "--seed-window goes with --binding",
    );
  });
});

describe("--binding with the targets", () => {
  const flags = { binding: "t3code" };
  it("needs a foreign server whose start command takes {state}", () => {
    expect(bindingFromFlags({}, flags, [foreign("srv --data {state} --port {port}")])).toEqual({
      module: "t3code",
      options: {},
      timeoutMs: 120_000,
      window: 16,
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
    expect(bindingFromFlags({}, {}, [foreign("srv {db}")])).toEqual({
      module: null,
      options: {},
      timeoutMs: 120_000,
      window: 16,
    });
    expect(usageError(() => bindingFromFlags({ cursor: 5 }, flags, t))).toMatch(/--cursor goes without --binding/);
    expect(usageError(() => bindingFromFlags({}, { "binding-option": ["a=1"] }, t))).toBe(
      "--binding-option goes with --binding",
    );
    const raw = { "binding-timeout-ms": 5000 };
    expect(usageError(() => bindingFromFlags(raw, { "binding-timeout-ms": 5000 }, [foreign("srv {db}")]))).toBe(
      "--binding-timeout-ms goes with --binding",
    );
    expect(bindingFromFlags(raw, { ...flags, "binding-timeout-ms": 0 }, t).timeoutMs).toBe(0);
  });
});

describe("a binding module's contract", () => {
  const ok = { name: "n", kinds: ["project"], write: () => 1, summarize: () => ({}) };
  it("is kept by a module with name, kinds, write and summarize (prepare, exclude and options optional)", () => {
    expect(contractGaps(ok)).toEqual([]);
    expect(contractGaps({ ...ok, prepare: async () => undefined, exclude: ["logs"], options: { a: "x" } })).toEqual([]);
  });

  it('may declare that its server needs its writes in strict order (order: "strict")', () => {
    expect(contractGaps({ ...ok, order: "strict" })).toEqual([]);
    expect(contractGaps({ ...ok, order: "entity" })).toEqual([]);
    expect(contractGaps({ ...ok, order: "serial" })).toEqual([
      'order ("strict": one write at a time, or "entity": a window of writes, when present)',
    ]);
  });

  it("declares its options as an object of names to what each does", () => {
    for (const options of [null, ["node"], { node: 1 }, "node"]) {
      expect(contractGaps({ ...ok, options })).toEqual([
        "options (an object of option names to what each does, when present)",
      ]);
    }
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

describe("the --binding-option keys against the ones the binding declares", () => {
  const t3 = {
    name: "t3code",
    kinds: ["project"],
    options: { node: "…", bin: "…", workspaces: "…" },
    write: async () => 1,
    summarize: () => ({ projects: 0, scriptBytes: 0, sequence: 0 }),
  };
  it("takes the declared ones", () => {
    expect(() => checkBindingOptions(t3, { node: "/opt/node", workspaces: "/tmp/w" })).not.toThrow();
  });

  it("refuses any other, with the nearest declared one and all of them", () => {
    expect(usageError(() => checkBindingOptions(t3, { nodee: "x" }))).toBe(
      "--binding-option nodee: the binding t3code has no such option (did you mean node?); its options: node, bin, workspaces",
    );
    expect(usageError(() => checkBindingOptions(t3, { port: "1" }))).toBe(
      "--binding-option port: the binding t3code has no such option; its options: node, bin, workspaces",
    );
    expect(usageError(() => checkBindingOptions({ ...t3, options: undefined }, { node: "x" }))).toBe(
      "--binding-option node: the binding t3code has no such option; it declares no options",
    );
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
