// A memory-matrix target that cannot start is no result (exit 3), as in the latency matrix: its failed
// trials are one kind in the report's table (the inspector banner's random URL taken out), and the
// real cause, at the end of its stderr tail, survives the clip.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { runCli, SERVER_MAIN } from "./support/harness.js";

let fixtures: TempFixtures;
let root: string;
let truncated: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-memstart");
  root = fixtures.dir;
  const good = fixtures.make("f", { projects: 20, scriptBytes: 256, events: 20, seed: 3 });
  truncated = join(root, "truncated.sqlite");
  writeFileSync(truncated, readFileSync(good).subarray(0, 8192));
});

afterAll(() => {
  fixtures?.cleanup();
});

describe("a memory-matrix target that cannot start", () => {
  it("exits 3; its failures are one kind that names the cause", async () => {
    const out = join(root, "run");
    const r = await runCli(
      [
        "bench",
        "--no-latency",
        "--no-aa",
        "--script-bytes",
        "1024",
        "--clients",
        "1",
        "--memory-trials",
        "2",
        "--fixtures-dir",
        join(root, "fixtures"),
        "--target",
        `bad=node ${SERVER_MAIN} --db ${truncated} --port {port}`,
        "--out",
        out,
      ],
      240_000,
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/4 memory trials could not start their target/);
    const md = readFileSync(join(out, "report.md"), "utf8");
    const table = md.slice(md.indexOf("## Failed trials")).split("\n\n")[1] ?? "";
    const kinds = table.split("\n").slice(2);
    expect(kinds, table).toHaveLength(1);
    expect(kinds[0]).toMatch(/corrupt or truncated.* \| 4 \| 4 \|$/);
    expect(kinds[0]).not.toMatch(/Debugger listening/);
  }, 300_000);
});
