// The options tables: validation (decimal integers only, single-value flags given once), the yargs
// options built from them (types and defaults in --help), the generated flag reference, and where
// the token comes from.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import yargs from "yargs";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import { authenticate } from "../../scenarios/lib/session.js";
import { unknownArgumentMessage } from "../../scripts/cli.js";
import { BENCH_COMMAND, BENCH_OPTIONS } from "../../scripts/options/bench.js";
import { COMMAND_SPECS } from "../../scripts/options/commands.js";
import { renderCliDoc } from "../../scripts/options/docs.js";
import { FIXTURE_OPTIONS } from "../../scripts/options/fixture.js";
import { FUZZ_COMMAND, FUZZ_OPTIONS } from "../../scripts/options/fuzz.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { defaultShown, readFlags } from "../../scripts/options/spec.js";
import { resolveToken } from "../../scripts/options/token.js";
import { applyOptions } from "../../scripts/options/yargs.js";
import { usageError } from "../support/usage-error.js";

const CLI_DOC = fileURLToPath(new URL("../../docs/cli.md", import.meta.url));

describe("readFlags", () => {
  it.each(["0x10", "0b11", "0o7", "Infinity", " 7", "7 ", "", "1_000", "1.5", "1e-1", "e3"])(
    "refuses %j for an integer flag, naming the flag and the range",
    (value) => {
      expect(usageError(() => readFlags(FIXTURE_OPTIONS, { projects: value }))).toBe(
        `--projects must be an integer from 1 to 1000000 (got ${JSON.stringify(value)})`,
      );
    },
  );

  it("refuses hex and Infinity in every integer and number flag of every command", () => {
    for (const spec of COMMAND_SPECS) {
      for (const [flag, o] of Object.entries(spec.options)) {
        if (o.type !== "int" && o.type !== "int-list" && o.type !== "number") continue;
        for (const bad of ["0x10", "Infinity"]) {
          expect(
            usageError(() => readFlags({ [flag]: o }, { [flag]: bad })),
            `${spec.command} --${flag}`,
          ).toMatch(new RegExp(`^--${flag} must be an? (integer|number) from`));
        }
      }
    }
  });

  it("accepts a number in range in any decimal notation: 1e3 is 1000, 10.0 is 10, 1e-7 a fraction", () => {
    expect(readFlags(FIXTURE_OPTIONS, { projects: "1e3", events: "10.0" })).toMatchObject({
      projects: 1000,
      events: 10,
    });
    expect(readFlags(BENCH_OPTIONS, { "storm-resume-ratio": "1e-7" })["storm-resume-ratio"]).toBe(1e-7);
    expect(readFlags(BENCH_OPTIONS, { ceiling: "1.03E0", clients: "1e0,4" })).toMatchObject({
      ceiling: 1.03,
      clients: [1, 4],
    });
    expect(usageError(() => readFlags(BENCH_OPTIONS, { trials: "1e4" }))).toBe(
      '--trials must be an integer from 1 to 1000 (got "1e4")',
    );
  });

  it("accepts decimal integers (with a sign), and decimal fractions for number flags", () => {
    expect(readFlags(FIXTURE_OPTIONS, { projects: "16", events: "+0" })).toMatchObject({ projects: 16, events: 0 });
    expect(readFlags(BENCH_OPTIONS, { ceiling: "1.03" }).ceiling).toBe(1.03);
    expect(readFlags(BENCH_OPTIONS, { clients: "1,4,16" }).clients).toEqual([1, 4, 16]);
  });

  it("says a single-value flag may be given once, not (got [...])", () => {
    expect(usageError(() => readFlags(FUZZ_OPTIONS, { seed: ["5", "6"] }))).toBe(
      "--seed may be given once (it was given 2 times)",
    );
    expect(usageError(() => readFlags(BENCH_OPTIONS, { token: ["a", "b"] }))).toBe(
      "--token may be given once (it was given 2 times)",
    );
    expect(usageError(() => readFlags(BENCH_OPTIONS, { quick: [true, true] }))).toMatch(/--quick may be given once/);
    // Lists and repeatable flags may be repeated.
    expect(readFlags(BENCH_OPTIONS, { clients: ["1", "4"] }).clients).toEqual([1, 4]);
    expect(readFlags(BENCH_OPTIONS, { target: ["a=x", "b=y"] }).target).toEqual(["a=x", "b=y"]);
  });

  it("fills in the table's defaults for absent flags and leaves flags without one undefined", () => {
    const f = readFlags(FUZZ_OPTIONS, {});
    expect(f).toEqual({ seconds: 20, seed: 1, connections: 4, "min-frames": 0, json: false });
    expect(readFlags(BENCH_OPTIONS, {}).out).toBeUndefined();
  });

  it("every default lies within its own table's range and choices", () => {
    for (const spec of COMMAND_SPECS) {
      for (const [flag, o] of Object.entries(spec.options)) {
        if (o.default === undefined) continue;
        const raw = Array.isArray(o.default)
          ? o.default.join(",")
          : o.type === "boolean"
            ? o.default
            : String(o.default);
        expect(() => readFlags({ [flag]: o }, { [flag]: raw }), `${spec.command} --${flag}`).not.toThrow();
      }
    }
  });
});

describe("yargs options built from a table", () => {
  async function parse(args: string[]) {
    let seen: Record<string, unknown> = {};
    await yargs(args)
      .parserConfiguration({ "camel-case-expansion": false })
      .command({
        command: "fuzz",
        describe: "",
        builder: (y) => applyOptions(y, FUZZ_COMMAND),
        handler: (a) => {
          seen = a;
        },
      })
      .parseAsync();
    return seen;
  }

  it("keeps the text as typed (so 0x10 can be refused) and fills in no default", async () => {
    const argv = await parse(["fuzz", "--seconds", "0x10"]);
    expect(argv.seconds).toBe("0x10");
    expect("seed" in argv).toBe(false);
  });

  it("shows numbers as [number] with the table's default in --help", async () => {
    const text = await applyOptions(yargs([]).wrap(200), BENCH_COMMAND).getHelp();
    expect(text).toMatch(/--ack-delay-ms .*\[number\] \[default: 100\]/);
    expect(text).toMatch(/--trials .*\[number\] \[default: \d+ \(1 with --quick\)\]/);
    expect(text).toMatch(/--memory .*\[boolean\] \[default: true\]/);
  });
});

describe("docs/cli.md", () => {
  it("is what `npm run docs:cli` generates from the tables (run it after changing a flag)", () => {
    expect(readFileSync(CLI_DOC, "utf8")).toBe(renderCliDoc());
  });

  it("lists every flag of every command with its default, and every exit code", () => {
    const doc = renderCliDoc();
    for (const spec of COMMAND_SPECS) {
      const heading = `## \`catchup-bench ${spec.command}\``;
      expect(doc).toContain(heading);
      const section = doc.slice(doc.indexOf(heading)).split("\n## ")[0] as string;
      for (const [flag, o] of Object.entries(spec.options)) {
        // The flag's own row: its name ends at a backtick or a comma (--latency is not --latency-sequential).
        const row = section.split("\n").find((l) => new RegExp(`^\\| \`--${flag}[\`,]`).test(l));
        expect(row, `${spec.command} --${flag}`).toBeDefined();
        const shown = defaultShown(o);
        if (shown !== undefined) expect(row).toContain(shown.replace(/\|/g, "\\|"));
      }
    }
    for (const code of [0, 1, 2, 3, 130, 143]) expect(doc).toMatch(new RegExp(`\\n\\| ${code} \\| `));
  });
});

describe("unknown flags", () => {
  it("are named once, as typed", () => {
    expect(
      unknownArgumentMessage("Unknown arguments: script-bytez, scriptBytez", ["bench", "--script-bytez", "5"]),
    ).toBe("Unknown argument: script-bytez (--script-bytez: did you mean --script-bytes?)");
    expect(unknownArgumentMessage("Unknown argument: such-flag", ["bench", "--no-such-flag"])).toBe(
      "Unknown argument: no-such-flag",
    );
    expect(unknownArgumentMessage("Unknown argument: memoryTrials", ["bench", "--memoryTrials=3"])).toBe(
      "Unknown argument: memoryTrials (--memoryTrials: did you mean --memory-trials?)",
    );
  });
});

describe("resolveToken", () => {
  const files: Record<string, string> = { "/t/ok": "s3cret\n", "/t/empty": "\n" };
  const read = (p: string) => {
    const text = files[p];
    if (text === undefined) throw Object.assign(new Error("nope"), { code: "ENOENT" });
    return text;
  };

  it("takes --token, else --token-file, else CATCHUP_TOKEN, else the dev token", () => {
    expect(resolveToken({ token: "flag" }, { CATCHUP_TOKEN: "env" }, read)).toBe("flag");
    expect(resolveToken({ "token-file": "/t/ok" }, { CATCHUP_TOKEN: "env" }, read)).toBe("s3cret");
    expect(resolveToken({}, { CATCHUP_TOKEN: "env" }, read)).toBe("env");
    expect(resolveToken({}, {}, read)).toBe(DEV_TOKEN);
  });

  it("a missing or empty --token-file, an empty CATCHUP_TOKEN, or --token with --token-file is a usage error", () => {
    expect(usageError(() => resolveToken({ "token-file": "/t/missing" }, {}, read))).toMatch(
      /^--token-file must be a readable file holding the token \(\/t\/missing: ENOENT\)$/,
    );
    expect(usageError(() => resolveToken({ "token-file": "/t/empty" }, {}, read))).toMatch(
      /--token-file holds no token/,
    );
    expect(usageError(() => resolveToken({}, { CATCHUP_TOKEN: " " }, read))).toMatch(/CATCHUP_TOKEN is set but empty/);
    expect(usageError(() => resolveToken({ token: "a", "token-file": "/t/ok" }, {}, read))).toMatch(
      /--token and --token-file cannot be combined/,
    );
  });
});

describe("--header", () => {
  it("becomes upgrade headers sent beside the token, the value never echoed in an error", () => {
    const c = resolveConfig({ header: ["X-Api-Key: k3y", "X-Tenant:t1"] });
    expect(c.protocol.headers).toEqual({ "X-Api-Key": "k3y", "X-Tenant": "t1" });
    expect(authenticate("ws://h/ws", "tok", "header", c.protocol.headers).params.headers).toEqual({
      "X-Api-Key": "k3y",
      "X-Tenant": "t1",
      Authorization: "Bearer tok",
    });
    expect(authenticate("ws://h/ws", null, "header", c.protocol.headers).params.headers).toEqual(c.protocol.headers);
    expect(resolveConfig({}).protocol.headers).toEqual({});
  });

  it.each([["no-colon-s3cret"], ["Bad Name: s3cret"], ["X-Empty:"], ["Authorization: Bearer s3cret"]])(
    "refuses %j without repeating the value",
    (header) => {
      const message = usageError(() => resolveConfig({ header }));
      expect(message).toMatch(/^--header /);
      expect(message).not.toContain("s3cret");
    },
  );

  it("refuses a header name given twice", () => {
    expect(usageError(() => resolveConfig({ header: ["X-A: 1", "x-a: 2"] }))).toBe("--header x-a is given twice");
  });
});
