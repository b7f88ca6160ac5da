// The store's first schema. A migration never changes once released: a new one is added instead.
// Written for both dialects the store runs on: an autoincrement key is `integer ... autoincrement`
// on SQLite and `serial` on PostgreSQL; everything else is types both have.
import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, SqliteAdapter } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the database as it is, not as the code's types say
type Db = Kysely<any>;

function withId<T extends string>(db: Db, table: CreateTableBuilder<T>): CreateTableBuilder<T, "id"> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  return sqlite
    ? table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    : table.addColumn("id", "serial", (c) => c.primaryKey());
}

const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

export async function up(db: Db): Promise<void> {
  await withId(db, db.schema.createTable("testbed"))
    .addColumn("fingerprint", "text", (c) => c.notNull().unique())
    .addColumn("cpu_model", "text", notNull)
    .addColumn("cores", "integer", notNull)
    .addColumn("memory_bytes", "bigint")
    .addColumn("node", "text", notNull)
    .addColumn("kernel", "text")
    .addColumn("first_seen", "text", notNull)
    .execute();
  await db.schema
    .createTable("commit")
    .addColumn("sha", "text", (c) => c.primaryKey())
    .addColumn("parent", "text")
    .addColumn("time", "bigint")
    .addColumn("ord", "integer")
    .addColumn("subject", "text")
    .execute();
  await withId(db, db.schema.createTable("run"))
    .addColumn("uid", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", notNull)
    .addColumn("branch", "text")
    .addColumn("base_sha", "text")
    .addColumn("head_sha", "text")
    .addColumn("anchor_sha", "text")
    .addColumn("testbed_id", "integer", (c) => c.notNull().references("testbed.id"))
    .addColumn("config_digest", "text", notNull)
    .addColumn("started_at", "text", notNull)
    .addColumn("finished_at", "text")
    .addColumn("source", "text")
    .addColumn("interrupted", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("excluded", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("exclude_reason", "text")
    .addColumn("added_at", "text", notNull)
    .execute();
  await db.schema.createIndex("run_series").on("run").columns(["kind", "branch", "testbed_id", "anchor_sha"]).execute();
  await withId(db, db.schema.createTable("cell"))
    .addColumn("matrix", "text", notNull)
    .addColumn("name", "text", notNull)
    .addUniqueConstraint("cell_matrix_name", ["matrix", "name"])
    .execute();
  await withId(db, db.schema.createTable("result"))
    .addColumn("run_id", "integer", (c) => c.notNull().references("run.id").onDelete("cascade"))
    .addColumn("cell_id", "integer", (c) => c.notNull().references("cell.id"))
    .addColumn("metric", "text", notNull)
    .addColumn("unit", "text", notNull)
    .addColumn("pairs", "integer", notNull)
    .addColumn("planned_pairs", "integer", notNull)
    .addColumn("base_estimate", "double precision")
    .addColumn("estimate", "double precision")
    .addColumn("estimate_low", "double precision")
    .addColumn("estimate_high", "double precision")
    .addColumn("ratio", "double precision")
    .addColumn("ratio_low", "double precision")
    .addColumn("ratio_high", "double precision")
    .addColumn("aa_low", "double precision")
    .addColumn("aa_high", "double precision")
    .addColumn("verdict", "text", notNull)
    .addColumn("outcome", "text")
    .addColumn("reason", "text", notNull)
    .addUniqueConstraint("result_run_cell_metric", ["run_id", "cell_id", "metric"])
    .execute();
  await withId(db, db.schema.createTable("sample"))
    .addColumn("run_id", "integer", (c) => c.notNull().references("run.id").onDelete("cascade"))
    .addColumn("cell_id", "integer", (c) => c.notNull().references("cell.id"))
    .addColumn("metric", "text", notNull)
    .addColumn("role", "text", notNull)
    .addColumn("trial", "integer", notNull)
    .addColumn("value", "double precision", notNull)
    .execute();
  await db.schema.createIndex("sample_run").on("sample").column("run_id").execute();
  await withId(db, db.schema.createTable("change_point"))
    .addColumn("cell_id", "integer", (c) => c.notNull().references("cell.id"))
    .addColumn("metric", "text", notNull)
    .addColumn("testbed_id", "integer", (c) => c.notNull().references("testbed.id"))
    .addColumn("branch", "text", notNull)
    .addColumn("anchor_sha", "text", notNull)
    .addColumn("commit_sha", "text", notNull)
    .addColumn("stable_sha", "text", notNull)
    .addColumn("p_value", "double precision", notNull)
    .addColumn("magnitude", "double precision", notNull)
    .addColumn("before", "double precision", notNull)
    .addColumn("after", "double precision", notNull)
    .addColumn("direction", "text", notNull)
    .addColumn("computed_at", "text", notNull)
    .execute();
  await withId(db, db.schema.createTable("triage"))
    .addColumn("commit_sha", "text", notNull)
    .addColumn("branch", "text", notNull)
    .addColumn("testbed_id", "integer", (c) => c.notNull().references("testbed.id"))
    .addColumn("state", "text", notNull)
    .addColumn("note", "text")
    .addColumn("at", "text", notNull)
    .addUniqueConstraint("triage_commit", ["commit_sha", "branch", "testbed_id"])
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of ["triage", "change_point", "sample", "result", "cell", "run", "commit", "testbed"]) {
    await db.schema.dropTable(table).execute();
  }
}
