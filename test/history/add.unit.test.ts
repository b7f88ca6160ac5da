// `history add`: earlier runs imported idempotently (a team merges the artifacts its CI kept), a run
// carrying history.json filed as its record, and a bad file refused before anything is written.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRecord } from "../../scripts/history/run-record.js";
import { writeRunTag } from "../../scripts/history/run-tag.js";
import { openStore } from "../../scripts/store/open-store.js";
import { runMain } from "../support/cli-in-process.js";
import { refRunDir, SHA_A } from "./history-runs.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "history-add-"));
  refRunDir(join(dir, "ci-1"), 1, "1".repeat(40));
  refRunDir(join(dir, "ci-2"), 2, "2".repeat(40));
  refRunDir(join(dir, "rec"), 3, "3".repeat(40));
  writeRunTag(join(dir, "rec"), { kind: "record", branch: "main" });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runs(store: string) {
  const s = await openStore(store);
  try {
    return await s.db.selectFrom("run").select(["kind", "branch", "head_sha", "anchor_sha"]).orderBy("id").execute();
  } finally {
    await s.close();
  }
}

describe("history add", () => {
  it("imports each run once: adding the same artifacts again, in any order, adds nothing", async () => {
    const store = join(dir, "merge.sqlite");
    const first = await runMain([
      "history",
      "add",
      join(dir, "ci-1"),
      join(dir, "ci-2", "results.json"),
      "--history",
      store,
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/ci-1: added run 1, compare/);
    const again = await runMain(["history", "add", join(dir, "ci-2"), join(dir, "ci-1"), "--history", store, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const json = JSON.parse(again.stdout) as { runs: { added: boolean }[] };
    expect(json.runs.map((r) => r.added)).toEqual([false, false]);
    expect(await runs(store)).toHaveLength(2);
  });

  it("files a run that carries history.json as the record it was, on its branch", async () => {
    const store = join(dir, "tag.sqlite");
    const r = await runMain([
      "history",
      "add",
      join(dir, "rec"),
      join(dir, "ci-1"),
      "--history",
      store,
      "--branch",
      "dev",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(await runs(store)).toEqual([
      { kind: "record", branch: "main", head_sha: "3".repeat(40), anchor_sha: SHA_A },
      { kind: "compare", branch: "dev", head_sha: "1".repeat(40), anchor_sha: SHA_A },
    ]);
  });

  it("refuses a bad file among good ones with one line, and writes none of them", async () => {
    const store = join(dir, "bad.sqlite");
    const bad = join(dir, "bad");
    refRunDir(bad, 4);
    writeFileSync(join(bad, "results.json"), "{ not json");
    const r = await runMain(["history", "add", join(dir, "ci-1"), bad, "--history", store]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/bad.results\.json is not valid JSON/);
    expect(await runs(store)).toHaveLength(0);
  });

  it("refuses a store file that is not SQLite, naming it (exit 2)", async () => {
    const notStore = join(dir, "text.sqlite");
    writeFileSync(notStore, "plain text, not a database ".repeat(40));
    const r = await runMain(["history", "add", join(dir, "ci-1"), "--history", notStore]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/text\.sqlite: not a SQLite file/);
  });

  it("leaves a working-tree or crashed run out of series, saying why", () => {
    const r = refRunDir(join(dir, "dirty"), 5);
    (r.variants[1] as { dirty?: boolean }).dirty = true;
    expect(runRecord(r, { kind: "record", branch: "main", source: null }).excluded).toMatch(/uncommitted changes/);
  });
});
