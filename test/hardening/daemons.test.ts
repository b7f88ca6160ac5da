// No process of the target's outlives the run. Targets that escape the harness's process group and
// tree: a daemonizing launcher (`setsid server & exit 0`, the server keeps the harness's output pipes)
// and a target that leaves a side daemon (`setsid sh -c 'sleep 777' &`, then exec the server). Each
// bench gets an environment entry of its own, inherited by everything it starts: after the bench has
// exited, no process may carry it (the bench's normal stop and its Ctrl-C path, not only the reaper).
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processesWithEnv } from "../../scripts/server-process/group.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { rowsOf, SERVER_MAIN, startCli, waitUntil } from "./support/harness.js";

const DAEMONIZE = fileURLToPath(new URL("./targets/daemonize.sh", import.meta.url));
const SIDE_DAEMON = fileURLToPath(new URL("./targets/side-daemon.sh", import.meta.url));
let fixtures: TempFixtures;
let fixture: string;
const marks: string[] = [];

beforeAll(() => {
  fixtures = tempFixtures("catchup-daemons");
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 256, events: 20 });
});

afterAll(() => {
  for (const mark of marks) for (const pid of processesWithEnv(mark)) process.kill(pid, "SIGKILL");
  fixtures?.cleanup();
});

/** Starts a bench of one target whose processes all carry a fresh environment mark. */
function bench(name: string, target: string, trials: number) {
  const id = randomBytes(6).toString("hex");
  const mark = `CATCHUP_TEST_DAEMON_${id}=`;
  marks.push(mark);
  const out = `${fixtures.dir}/run-${name}`;
  const run = startCli(
    [
      "bench",
      "--no-memory",
      "--no-aa",
      "--cases",
      "snapshot",
      "--trials",
      String(trials),
      "--ack-delay-ms",
      "300",
      "--fixture",
      fixture,
      "--target",
      `${name}=${target}`,
      "--out",
      out,
    ],
    { [`CATCHUP_TEST_DAEMON_${id}`]: "1" },
  );
  const left = () => processesWithEnv(mark).filter((p) => p !== run.child.pid);
  // Reapers carry the mark too and exit just after their harness: allow them a moment, less than the
  // reaper's own 5 s grace, so what is checked is the bench's stop, not the reaper's.
  const gone = async () => {
    await waitUntil(() => left().length === 0, 3000);
    return left();
  };
  return { run, out, left, gone };
}

/** Resolves the exit, or SIGKILLs the bench after timeoutMs and says it hung. */
async function exitWithin(run: ReturnType<typeof startCli>, timeoutMs: number) {
  const timer = setTimeout(() => run.child.kill("SIGKILL"), timeoutMs);
  const exit = await run.exited;
  clearTimeout(timer);
  expect(exit.signal, `the bench hung (killed after ${timeoutMs} ms); stderr: ${run.stderr()}`).toBeNull();
  return exit;
}

const server = `node ${SERVER_MAIN} --db {db} --port {port}`;

describe.concurrent("targets that escape the process group: nothing of theirs outlives the run", () => {
  it("a daemonizing launcher: the bench measures its server, exits, and the server is gone", async () => {
    const b = bench("daemon", `sh ${DAEMONIZE} ${server}`, 2);
    const exit = await exitWithin(b.run, 90_000);
    expect(exit.code, b.run.stderr()).toBe(0);
    expect(rowsOf(`${b.out}/results.jsonl`).filter((r) => r.ok)).toHaveLength(2);
    expect(await b.gone(), "processes of the target left").toEqual([]);
  }, 120_000);

  it("a side daemon: gone after a normal end of the run", async () => {
    const b = bench("side", `sh ${SIDE_DAEMON} ${server}`, 2);
    const exit = await exitWithin(b.run, 90_000);
    expect(exit.code, b.run.stderr()).toBe(0);
    expect(await b.gone(), "processes of the target left").toEqual([]);
  }, 120_000);

  it("a side daemon: gone after Ctrl-C of the harness", async () => {
    const b = bench("side-int", `sh ${SIDE_DAEMON} ${server}`, 20);
    // Once the first trial is done the target (and its side daemon) are surely up.
    expect(await waitUntil(() => /\[1\/20\]/.test(b.run.stderr()), 90_000), b.run.stderr()).toBe(true);
    expect(b.left().length, "the target's processes while it runs").toBeGreaterThan(1);
    b.run.child.kill("SIGINT");
    const exit = await exitWithin(b.run, 60_000);
    expect(exit.code, b.run.stderr()).toBe(130);
    expect(await b.gone(), "processes of the target left").toEqual([]);
  }, 160_000);

  it("a daemonizing launcher: gone after Ctrl-C of the harness", async () => {
    const b = bench("daemon-int", `sh ${DAEMONIZE} ${server}`, 20);
    expect(await waitUntil(() => /\[1\/20\]/.test(b.run.stderr()), 90_000), b.run.stderr()).toBe(true);
    b.run.child.kill("SIGINT");
    const exit = await exitWithin(b.run, 60_000);
    expect(exit.code, b.run.stderr()).toBe(130);
    expect(await b.gone(), "processes of the target left").toEqual([]);
  }, 160_000);
});
