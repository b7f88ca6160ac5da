// catchup-bench.config.json: every bench option in one file, checked key by key against the same
// table as the flags (unknown keys with a "did you mean", wrong types and ranges naming the key and
// what it takes), flags given on the command line over it, relative paths from its folder, and a
// published JSON Schema generated from that table.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BENCH_OPTIONS } from "../../scripts/options/bench.js";
import {
  benchConfigSchema,
  CONFIG_FILE,
  configFlags,
  loadConfigFile,
  withConfig,
} from "../../scripts/options/config-file.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { starterConfig } from "../../scripts/options/starter-config.js";
import { usageError } from "../support/usage-error.js";

const SCHEMA = fileURLToPath(new URL("../../catchup-bench.schema.json", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "catchup-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flags = (json: unknown) => configFlags(json, BENCH_OPTIONS, "/x/catchup-bench.config.json", "/x");

describe("a config file's keys", () => {
  it("become the flags' raw values, paths resolved from the config's folder", () => {
    expect(
      flags({
        $schema: "./s.json",
        trials: 3,
        "script-bytes": [1024, 8192],
        cases: ["snapshot", "resume-many"],
        memory: false,
        target: ["a=node a.js --port {port}", "b=node b.js --port {port}"],
        "token-file": "secrets/token",
        out: "/abs/out",
      }),
    ).toEqual({
      trials: "3",
      "script-bytes": "1024,8192",
      cases: "snapshot,resume-many",
      memory: false,
      target: ["a=node a.js --port {port}", "b=node b.js --port {port}"],
      "token-file": "/x/secrets/token",
      out: "/abs/out",
    });
  });

  it("resolve a binding's path from the config's folder, and leave a shipped binding's name alone", () => {
    expect(flags({ binding: "./bench/notes.mjs", "binding-option": ["node=/n"] })).toEqual({
      binding: "/x/bench/notes.mjs",
      "binding-option": ["node=/n"],
    });
    expect(flags({ binding: "t3code" })).toEqual({ binding: "t3code" });
  });

  it("refuse an unknown key with the nearest one and the keys there are", () => {
    const message = usageError(() => flags({ "scrip-bytes": 1024 }));
    expect(message).toMatch(
      /^\/x\/catchup-bench\.config\.json: unknown key "scrip-bytes" \(did you mean "script-bytes"\?\); the keys are the bench flags without their dashes: cases, trials, /,
    );
  });

  it("refuse a wrong type or an out-of-range value, naming the key and what it takes", () => {
    expect(usageError(() => flags({ trials: "8" }))).toBe(
      'key "trials" in /x/catchup-bench.config.json must be an integer from 1 to 1000 (got "8")',
    );
    expect(usageError(() => flags({ trials: 0 }))).toBe(
      'key "trials" in /x/catchup-bench.config.json must be an integer from 1 to 1000 (got 0)',
    );
    expect(usageError(() => flags({ variants: ["legacy", "fast"] }))).toMatch(
      /key "variants" in \/x\/catchup-bench\.config\.json must be an array of "legacy", "batched" \(got \["legacy","fast"\]\)$/,
    );
    expect(usageError(() => flags({ memory: "no" }))).toMatch(
      /key "memory" in \/x\/catchup-bench\.config\.json must be true or false \(got "no"\)$/,
    );
    expect(usageError(() => flags([1, 2]))).toMatch(/must hold one JSON object of bench options/);
    // JSON reads 1e400 as Infinity: said as such, never "(got null)".
    expect(usageError(() => flags(JSON.parse('{"trials": 1e400}')))).toBe(
      'key "trials" in /x/catchup-bench.config.json must be an integer from 1 to 1000 (got a number too large to hold)',
    );
  });

  it("take a payload template as a JSON object too, its string {after} the sequence", () => {
    const f = flags({ "subscribe-payload": { since: "{after}", note: "x" }, "thread-subscribe-payload": "{}" });
    expect(f["subscribe-payload"]).toBe('{"since":{after},"note":"x"}');
    expect(resolveConfig(withConfig({ _: [] }, f)).protocol.subscribePayload).toBe('{"since":{after},"note":"x"}');
    expect(benchConfigSchema().properties).toMatchObject({
      "subscribe-payload": { oneOf: [{ type: "string" }, { type: "object" }] },
    });
    expect(usageError(() => flags({ "subscribe-payload": [1] }))).toMatch(/"subscribe-payload" .* must be a string/);
  });

  it("give way to the flags given on the command line", () => {
    const raw = withConfig({ trials: "2", _: [] }, flags({ trials: 5, "ack-delay-ms": 50 }));
    const c = resolveConfig(raw);
    expect(c.latency.trials).toBe(2);
    expect(c.protocol.ackDelayMs).toBe(50);
  });
});

describe("loading the config", () => {
  it("reads catchup-bench.config.json of the working directory when there is one, with its digest", () => {
    const cwd = mkdtempSync(join(dir, "cwd-"));
    expect(loadConfigFile(BENCH_OPTIONS, undefined, cwd)).toBeNull();
    writeFileSync(join(cwd, CONFIG_FILE), '{"trials": 4}\n');
    const loaded = loadConfigFile(BENCH_OPTIONS, undefined, cwd);
    expect(loaded?.flags).toEqual({ trials: "4" });
    expect(loaded?.file).toBe(join(cwd, CONFIG_FILE));
    expect(loaded?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(resolveConfig(withConfig({}, loaded?.flags ?? {}), {}, { path: "p", sha256: "s" }).run.configFile).toEqual({
      path: "p",
      sha256: "s",
    });
  });

  it("reads a file saved with a UTF-8 byte order mark (as some Windows editors save JSON)", () => {
    const cwd = mkdtempSync(join(dir, "bom-"));
    writeFileSync(join(cwd, CONFIG_FILE), `\uFEFF${JSON.stringify({ trials: 4 })}\r\n`);
    expect(loadConfigFile(BENCH_OPTIONS, undefined, cwd)?.flags).toEqual({ trials: "4" });
  });

  it("refuses a --config that is missing, not JSON, or names another config", () => {
    const cwd = mkdtempSync(join(dir, "bad-"));
    expect(usageError(() => loadConfigFile(BENCH_OPTIONS, "nope.json", cwd))).toMatch(
      /^--config .*nope\.json: cannot read it \(ENOENT\)/,
    );
    writeFileSync(join(cwd, "broken.json"), "{trials: 4}");
    expect(usageError(() => loadConfigFile(BENCH_OPTIONS, "broken.json", cwd))).toMatch(
      /^--config .*broken\.json: not JSON/,
    );
    writeFileSync(join(cwd, "nested.json"), '{"config": "other.json"}');
    expect(usageError(() => loadConfigFile(BENCH_OPTIONS, "nested.json", cwd))).toMatch(/key "config" cannot be set/);
  });
});

describe("the schema", () => {
  it("is what `npm run docs:cli` generates from the bench table (run it after changing a flag)", () => {
    expect(JSON.parse(readFileSync(SCHEMA, "utf8"))).toEqual(benchConfigSchema());
  });

  it("has a property per bench flag but --config, typed as the flag", () => {
    const schema = benchConfigSchema() as { properties: Record<string, Record<string, unknown>> };
    const keys = Object.keys(BENCH_OPTIONS).filter((k) => k !== "config");
    expect(Object.keys(schema.properties).sort()).toEqual(["$schema", ...keys].sort());
    expect(schema.properties.trials).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 });
    expect(schema.properties.memory).toMatchObject({ type: "boolean" });
  });

  it("accepts the starter config init writes", () => {
    const text = starterConfig({ baseline: "origin/main", scripts: { build: "tsc", start: "node ." } });
    const { $schema: _, ...json } = JSON.parse(text) as Record<string, unknown>;
    expect(() => flags(json)).not.toThrow();
    expect(json).toMatchObject({ ref: ["baseline=origin/main", "head=HEAD"], build: "npm ci && npm run build" });
  });
});
