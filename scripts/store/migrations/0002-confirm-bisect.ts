// Confirmations and bisections: a change point re-measured paired (its outcome kept, rejected ones
// too, so the store knows its false-alarm rate), and a bisection with every step it took (a killed
// bisection resumes from them). Added after 0001 was released: 0001 is never edited.
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

/** The columns of one paired comparison of two commits: a bisection step and a confirmation each record one. */
function withPairedOutcome<T extends string, C extends string, A extends string, B extends string>(
  table: CreateTableBuilder<T, C>,
  first: A,
  second: B,
) {
  return table
    .addColumn(first, "text", notNull)
    .addColumn(second, "text", notNull)
    .addColumn("outcome", "text", notNull)
    .addColumn("pairs", "integer", notNull)
    .addColumn("run_id", "integer", (c) => c.references("run.id"))
    .addColumn("detail", "text", notNull);
}

export async function up(db: Db): Promise<void> {
  await withId(db, db.schema.createTable("bisection"))
    .addColumn("good_sha", "text", notNull)
    .addColumn("bad_sha", "text", notNull)
    .addColumn("branch", "text", notNull)
    .addColumn("testbed_id", "integer", (c) => c.notNull().references("testbed.id"))
    .addColumn("config_digest", "text", notNull)
    .addColumn("status", "text", notNull)
    .addColumn("outcome", "text")
    .addColumn("culprits", "text")
    .addColumn("started_at", "text", notNull)
    .addColumn("finished_at", "text")
    .addUniqueConstraint("bisection_range", ["good_sha", "bad_sha", "branch", "testbed_id", "config_digest"])
    .execute();
  await withId(db, db.schema.createTable("bisection_step"))
    .addColumn("bisection_id", "integer", (c) => c.notNull().references("bisection.id").onDelete("cascade"))
    .addColumn("ord", "integer", notNull)
    .$call((t) => withPairedOutcome(t, "base_sha", "head_sha"))
    .addColumn("at", "text", notNull)
    .addUniqueConstraint("bisection_step_pair", ["bisection_id", "base_sha", "head_sha"])
    .execute();
  await withId(db, db.schema.createTable("confirmation"))
    .addColumn("branch", "text", notNull)
    .addColumn("testbed_id", "integer", (c) => c.notNull().references("testbed.id"))
    .$call((t) => withPairedOutcome(t, "stable_sha", "commit_sha"))
    .addColumn("culprits", "text")
    .addColumn("bisection_id", "integer", (c) => c.references("bisection.id"))
    .addColumn("at", "text", notNull)
    .addUniqueConstraint("confirmation_pair", ["branch", "testbed_id", "stable_sha", "commit_sha"])
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of ["confirmation", "bisection_step", "bisection"]) await db.schema.dropTable(table).execute();
}
