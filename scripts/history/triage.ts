// Triage of a suspect commit: acknowledged (a known change) or hidden (noise), kept across recomputes.
// One decision per commit, branch and testbed; a commit given by a prefix must name one commit.
import type { HistoryStore } from "../store/open-store.js";
import { commitsByPrefix, setTriage } from "../store/series-rows.js";
import type { TriageState } from "../store/tables.js";
import { UsageError } from "../util/usage.js";

export interface TriageRequest {
  commit: string;
  branch: string;
  state: TriageState;
  note: string | null;
}

/** Records the decision for every testbed the commit's change points are on (or every testbed with runs). */
export async function triageCommit(
  store: HistoryStore,
  t: TriageRequest,
): Promise<{ commitSha: string; branch: string; state: TriageState; testbeds: number }> {
  if (!/^[0-9a-f]{4,40}$/i.test(t.commit)) {
    throw new UsageError(`history triage: ${JSON.stringify(t.commit)} is not a commit sha (4 to 40 hex digits)`);
  }
  const matches = await commitsByPrefix(store, t.commit.toLowerCase());
  if (matches.length !== 1) {
    throw new UsageError(
      `history triage: ${t.commit} ${matches.length === 0 ? "is no commit of the store" : `names ${matches.length} commits; give more digits`}`,
    );
  }
  const sha = matches[0] as string;
  const onPoints = await store.db
    .selectFrom("change_point")
    .select("testbed_id")
    .distinct()
    .where("commit_sha", "=", sha)
    .where("branch", "=", t.branch)
    .execute();
  const testbeds =
    onPoints.length > 0 ? onPoints : await store.db.selectFrom("testbed").select("id as testbed_id").execute();
  for (const { testbed_id } of testbeds) {
    await setTriage(store, { commitSha: sha, branch: t.branch, testbedId: testbed_id, state: t.state, note: t.note });
  }
  return { commitSha: sha, branch: t.branch, state: t.state, testbeds: testbeds.length };
}
