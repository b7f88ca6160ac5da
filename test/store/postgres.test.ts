// The team store on a real PostgreSQL server this test starts (test/support/postgres.ts): the cases
// the SQLite store passes (each migrated from an empty database), `history add` by the real CLI, also
// twice at once as two CI jobs would (each run once), series, detection and the page read back as
// from SQLite, and a server it cannot use (wrong password, refused port, no such database) one line
// naming the URL without its password.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeRunTag } from "../../scripts/history/run-tag.js";
import type { Results } from "../../scripts/results/schema.js";
import { openStore } from "../../scripts/store/open-store.js";
import { readSeriesRows, type SeriesRow } from "../../scripts/store/series-rows.js";
import { ROOT } from "../bench/bench-child.js";
import { syntheticResults } from "../report/synthetic-run.js";
import { runNode } from "../support/child.js";
import { type PostgresServer, startPostgres } from "../support/postgres.js";
import { storeCases } from "./store-cases.js";

const BIN = join(ROOT, "bin", "catchup-bench.js");
const SHA_A = "a".repeat(40);

let pg: PostgresServer;
let dir: string;
/** Twelve record runs on main: six commits as fast as the anchor, then six 60% slower. */
let runs: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pg-store-"));
  runs = Array.from({ length: 12 }, (_, i) => {
    const run = join(dir, `series-${i + 1}`);
    mkdirSync(run);
    const r = syntheticResults(run, { seed: i + 1, trials: 5, memoryTrials: 1, candidateFactor: i < 6 ? 1 : 1.6 });
    r.variants[0] = { ...(r.variants[0] as Results["variants"][number]), commit: SHA_A, dirty: false };
    const head = (i + 1).toString(16).padStart(40, "0");
    r.variants[1] = { ...(r.variants[1] as Results["variants"][number]), commit: head, dirty: false };
    writeFileSync(join(run, "results.json"), JSON.stringify(r));
    writeRunTag(run, { kind: "record", branch: "main" });
    return run;
  });
  pg = await startPostgres();
}, 120_000);

afterAll(async () => {
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 90_000);

const history = (...args: string[]) =>
  runNode([BIN, "history", ...args], { cwd: dir, timeoutMs: 120_000, label: `history ${args[0]}` });

/** A database of its own, migrated by nothing yet. */
async function database(name: string): Promise<string> {
  await pg.createDatabase(name);
  return pg.url(name);
}

async function seriesOf(location: string): Promise<Omit<SeriesRow, "runId" | "testbedId">[]> {
  const store = await openStore(location);
  try {
    const rows = (await readSeriesRows(store)).map(({ runId: _r, testbedId: _t, ...row }) => row);
    return rows.sort((a, b) => `${a.headSha}${a.cell}${a.metric}`.localeCompare(`${b.headSha}${b.cell}${b.metric}`));
  } finally {
    await store.close();
  }
}

const addedOf = (stdout: string) => (JSON.parse(stdout) as { runs: { added: boolean }[] }).runs.filter((r) => r.added);

describe("history store (PostgreSQL)", () => {
  storeCases(
    async (name) => openStore(await database(name)),
    () => dir,
  );

  it("adds results once, also when two jobs add them at once, and reads back what SQLite reads back", async () => {
    const sqlite = join(dir, "same.sqlite");
    const url = await database("sequential");
    const intoSqlite = await history("add", ...runs, "--history", sqlite);
    expect(intoSqlite.code, intoSqlite.stderr).toBe(0);
    const first = await history("add", ...runs, "--history", url, "--json");
    expect(first.code, first.stderr).toBe(0);
    expect(addedOf(first.stdout)).toHaveLength(12);
    const again = await history("add", runs[0] as string, "--history", url);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already there \(run 1\)/);
    expect(again.stderr).toContain(`postgres://…@127.0.0.1:${pg.port}/sequential`);
    expect(again.stderr + again.stdout).not.toContain(pg.password);

    const shared = await database("concurrent");
    const jobs = await Promise.all([1, 2].map(() => history("add", ...runs, "--history", shared, "--json")));
    for (const job of jobs) expect(job.code, job.stderr).toBe(0);
    expect(jobs.flatMap((j) => addedOf(j.stdout))).toHaveLength(12);

    const expected = await seriesOf(sqlite);
    expect(expected.length).toBeGreaterThan(12);
    expect(await seriesOf(url)).toEqual(expected);
    expect(await seriesOf(shared)).toEqual(expected);
  });

  it("detects change points and draws the page from PostgreSQL as from SQLite, the password left out", async () => {
    const sqlite = join(dir, "detect.sqlite");
    const url = await database("detect");
    for (const store of [sqlite, url]) expect((await history("add", ...runs, "--history", store)).code).toBe(0);
    const [fromSqlite, fromPg] = await Promise.all(
      [sqlite, url].map((s) => history("detect", "--history", s, "--json")),
    );
    expect(fromPg?.code, fromPg?.stderr).toBe(0);
    const { store: _s, ...expected } = JSON.parse(fromSqlite?.stdout as string) as Record<string, unknown>;
    const { store: _p, ...got } = JSON.parse(fromPg?.stdout as string) as Record<string, unknown>;
    expect(got).toEqual(expected);
    expect(JSON.stringify(got)).toContain((7).toString(16).padStart(40, "0"));
    const page = join(dir, "history.html");
    const drawn = await history("page", "--history", url, "--out", page);
    expect(drawn.code, drawn.stderr).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toContain(`postgres://…@127.0.0.1:${pg.port}/detect`);
    expect(html).not.toContain(pg.password);
  });

  it("says in one line why a server cannot be used, naming the URL without its password", async () => {
    await pg.createDatabase("auth");
    const cases: [string, RegExp][] = [
      [pg.url("auth", "wrong-pw"), /password authentication failed/],
      [pg.url("nosuch"), /database "nosuch" does not exist/],
      [pg.url("auth").replace(`:${pg.port}/`, ":1/"), /ECONNREFUSED/],
    ];
    for (const [url, cause] of cases) {
      const r = await history("detect", "--history", url);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/history postgres:\/\/…@127\.0\.0\.1:\d+\/\w+: cannot connect \(/);
      expect(r.stderr).toMatch(cause);
      expect(r.stderr).not.toMatch(/wrong-pw|s3cret/);
    }
  });
});
