// `history confirm`: every change point of the branch's series (one alert per suspect commit) is
// re-measured as a paired comparison of its last stable commit against the suspect, decided on the
// cells that changed there: DIFFERENT confirms it, SAME rejects it (a false alarm, kept so the store
// knows its rate), UNKNOWN stays open at the cap of pairs. Alerts already confirmed on this testbed are
// skipped (a killed confirm resumes); with `bisect`, a confirmed alert whose stable commit is not the
// suspect's parent is bisected to its culprit, and the culprits are written onto the confirmation.

import { readConfirmations, saveConfirmation, setConfirmationCulprits } from "../store/bisections.js";
import type { HistoryStore } from "../store/open-store.js";
import { testbedFingerprint } from "../store/testbed.js";
import type { StopSignal } from "../util/stop-signals.js";
import type { DetectSettings } from "../verdicts/history-series.js";
import { type BisectReport, runBisection } from "./bisect.js";
import { detectStore } from "./detect.js";
import { decidePair, type PairSettings } from "./paired-outcome.js";
import { type MeasureContext, requestedDigest, thisTestbed } from "./record.js";

export interface Confirmed {
  stable: string;
  commit: string;
  outcome: "DIFFERENT" | "SAME" | "UNKNOWN";
  pairs: number;
  runId: number | null;
  cells: Awaited<ReturnType<typeof decidePair>>["cells"];
  /** Already in the store from an earlier confirm: not measured again. */
  saved: boolean;
  bisect: BisectReport | null;
}

const short = (sha: string) => sha.slice(0, 12);

async function alreadyConfirmed(store: HistoryStore, branch: string) {
  const fingerprint = testbedFingerprint(thisTestbed());
  const ours = await store.db
    .selectFrom("testbed")
    .select("id")
    .where("fingerprint", "=", fingerprint)
    .executeTakeFirst();
  return (await readConfirmations(store, branch)).filter((c) => c.testbedId === ours?.id);
}

/** Confirms the branch's alerts in order, newest first; stops at a run stopped by a signal. */
export async function confirmAlerts(
  ctx: MeasureContext,
  o: { detect: DetectSettings; settings: PairSettings; bisect: boolean; log: (line: string) => void },
): Promise<{ confirmed: Confirmed[]; stoppedBy: StopSignal | null }> {
  const detection = await detectStore(ctx.store, o.detect, ctx.branch);
  const done = await alreadyConfirmed(ctx.store, ctx.branch);
  const digest = requestedDigest(ctx);
  const confirmed: Confirmed[] = [];
  const alerts = detection.alerts.filter((a) => a.branch === ctx.branch);
  for (const [i, alert] of alerts.entries()) {
    const focus = alert.changes.map((c) => ({ cell: c.cell, metric: c.metric }));
    const before = done.find((c) => c.stableSha === alert.stableCommit && c.commitSha === alert.commit);
    let entry: Confirmed;
    if (before) {
      o.log(`history confirm: [${i + 1}/${alerts.length}] ${short(alert.commit)}: ${before.outcome} (saved)`);
      entry = {
        stable: before.stableSha,
        commit: before.commitSha,
        outcome: before.outcome,
        pairs: before.pairs,
        runId: before.runId,
        cells: before.cells,
        saved: true,
        bisect: null,
      };
    } else {
      o.log(
        `history confirm: [${i + 1}/${alerts.length}] ${short(alert.commit)} against its last stable ${short(alert.stableCommit)}`,
      );
      const d = await decidePair(
        ctx,
        "confirm",
        { base: alert.stableCommit, head: alert.commit, digest, focus },
        o.settings,
        o.log,
      );
      if (d.stoppedBy === "SIGINT" || d.stoppedBy === "SIGTERM") return { confirmed, stoppedBy: d.stoppedBy };
      await saveConfirmation(ctx.store, { branch: ctx.branch, testbed: thisTestbed(), comparison: d });
      entry = {
        stable: alert.stableCommit,
        commit: alert.commit,
        outcome: d.outcome,
        pairs: d.pairs,
        runId: d.runId,
        cells: d.cells,
        saved: false,
        bisect: null,
      };
    }
    confirmed.push(entry);
    if (o.bisect && entry.outcome === "DIFFERENT") {
      const first = {
        base: entry.stable,
        head: entry.commit,
        outcome: entry.outcome,
        pairs: entry.pairs,
        runId: entry.runId,
        cells: entry.cells,
      };
      const report = await runBisection(ctx, {
        good: entry.stable,
        bad: entry.commit,
        focus,
        settings: o.settings,
        log: o.log,
        first,
      });
      entry.bisect = report;
      if (report.stoppedBy) return { confirmed, stoppedBy: report.stoppedBy };
      const culprits = report.culprits.map((c) => c.commit);
      await setConfirmationCulprits(ctx.store, {
        branch: ctx.branch,
        stableSha: entry.stable,
        commitSha: entry.commit,
        culprits,
        bisectionId: report.bisectionId,
      });
    }
  }
  return { confirmed, stoppedBy: null };
}
