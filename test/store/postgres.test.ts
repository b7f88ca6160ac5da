// The team store on a real PostgreSQL server this test starts (test/support/postgres.ts): the cases
// the SQLite store passes (each migrated from an empty database), `history add` by the real CLI, also
// twice at once as two CI jobs would (each run once), series, detection and the page read back as
// from SQLite, and a server it cannot use (wrong password, refused port, no such database) one line
// naming the URL without its password.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeFailures } from "../../scripts/commands/history-run.js";
import { writeRunTag } from "../../scripts/history/run-tag.js";
import type { Results } from "../../scripts/results/schema.js";
import { openStore } from "../../scripts/store/open-store.js";
import { readSeriesRows, type SeriesRow } from "../../scripts/store/series-rows.js";
import { isStoreFailure } from "../../scripts/store/store-failure.js";
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
    r.variants[1] = { ...(r.variants[1] as Results["variants"][number]), commit: head(i + 1), dirty: false };
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

const head = (i: number) => i.toString(16).padStart(40, "0");

/** Resolves once `ready()` holds, checking every 50 ms; rejects naming `what` after 30 s. */
async function waitFor(ready: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
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

  it("makes one run of two adds of the same results that both found it missing", async () => {
    const url = await database("race");
    const store = await openStore(url);
    try {
      for (const sha of [SHA_A, head(1)]) await store.db.insertInto("commit").values({ sha }).execute();
    } finally {
      await store.close();
    }
    // A third session holds the commits' rows: both adds pass their "already there?" check, then wait
    // at the commit upsert; released together, both reach the run's insert. A fourth watches them
    // (pg_stat_activity is read once per transaction: the holder would see it frozen).
    const [lock, watch] = [new Client({ connectionString: url }), new Client({ connectionString: url })];
    await Promise.all([lock.connect(), watch.connect()]);
    try {
      await lock.query('begin; select * from "commit" for update');
      const jobs = [1, 2].map(() => history("add", runs[0] as string, "--history", url, "--json"));
      await waitFor(async () => {
        const waiting =
          "select count(*)::int as n from pg_stat_activity where wait_event in ('transactionid', 'tuple')";
        return (await watch.query(waiting)).rows[0].n === 2;
      }, "two adds waiting on the held rows");
      await lock.query("commit");
      const done = await Promise.all(jobs);
      for (const job of done) expect(job.code, job.stderr).toBe(0);
      expect(done.flatMap((j) => addedOf(j.stdout))).toHaveLength(1);
      expect(done.map((j) => JSON.parse(j.stdout).runs[0].id)).toEqual([1, 1]);
    } finally {
      await Promise.all([lock.end(), watch.end()]);
    }
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
    expect(JSON.stringify(got)).toContain(head(7));
    const page = join(dir, "history.html");
    const drawn = await history("page", "--history", url, "--out", page);
    expect(drawn.code, drawn.stderr).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toContain(`postgres://…@127.0.0.1:${pg.port}/detect`);
    expect(html).not.toContain(pg.password);
  });

  it("says a server that ends a statement mid-command in one line (a store failure, not a stack)", async () => {
    const url = await database("ended");
    const store = await openStore(url);
    const admin = new Client({ connectionString: pg.url("postgres") });
    await admin.connect();
    try {
      const running = sql`select pg_sleep(30)`.execute(store.db).then(
        () => null,
        (e: unknown) => e,
      );
      const sleeping = "select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep%'";
      await waitFor(async () => (await admin.query(sleeping)).rows[0].n === 1, "the statement running");
      await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = 'ended' and pid <> pg_backend_pid()",
      );
      const error = await running;
      expect(isStoreFailure(error), String(error)).toBe(true);
      const lines: string[] = [];
      const code = await storeFailures(() => Promise.reject(error), {
        cwd: dir,
        env: process.env,
        out: () => undefined,
        err: (t) => lines.push(t),
      });
      expect(code).toBe(3);
      expect(lines.join("").trim().split("\n")).toHaveLength(1);
      // The line names the store it opened last, its password left out.
      expect(lines.join("")).toMatch(
        /^catchup-bench: the history store postgres:\/\/\S+\/ended failed: terminating connection/,
      );
      expect(lines.join("")).not.toContain(pg.password);
    } finally {
      await admin.end();
      await store.close().catch(() => undefined);
    }
  });

  it("takes the password from PGPASSWORD or a password file, and says in one line why a server cannot be used, without the password", async () => {
    await pg.createDatabase("auth");
    const cases: [string, RegExp][] = [
      [pg.url("auth", "wrong-pw"), /password authentication failed/],
      [pg.url("nosuch"), /database "nosuch" does not exist/],
      [pg.url("auth").replace(`:${pg.port}/`, ":1/"), /ECONNREFUSED/],
    ];
    const fromEnv = await runNode([BIN, "history", "detect", "--history", pg.url("auth").replace(/:[^:@/]*@/, "@")], {
      cwd: dir,
      timeoutMs: 120_000,
      env: { ...process.env, PGPASSWORD: pg.password },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    // Or from a password file, as libpq reads one (~/.pgpass, here named by PGPASSFILE; mode 0600).
    const passFile = join(dir, "pgpass");
    writeFileSync(passFile, `127.0.0.1:${pg.port}:auth:bench:${pg.password}\n`, { mode: 0o600 });
    const { PGPASSWORD: _unset, ...env } = process.env;
    const fromFile = await runNode([BIN, "history", "detect", "--history", pg.url("auth").replace(/:[^:@/]*@/, "@")], {
      cwd: dir,
      timeoutMs: 120_000,
      env: { ...env, PGPASSFILE: passFile },
    });
    expect(fromFile.code, fromFile.stderr).toBe(0);
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
