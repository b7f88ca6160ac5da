// --backlog sets the listening socket's backlog (Node's 511 without it), as the kernel reports it:
// the Send-Q column of the LISTEN row in `ss -Hltn` (iproute2; CI installs it when missing).
import { afterAll, beforeAll, expect, it } from "vitest";
import { readListenBacklog, readSomaxconn } from "../../scripts/storm/limits.js";
import { type RunningServer, startServer } from "../support/server.js";
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let db: string;
const started: RunningServer[] = [];

beforeAll(() => {
  fixtures = tempFixtures();
  db = fixtures.make("backlog", CHUNK_FIXTURE);
});

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  fixtures?.cleanup();
});

const portOf = (s: RunningServer) => Number(new URL(s.url).port);

it("listens with Node's backlog of 511 by default and with --backlog N when given (capped by somaxconn)", async () => {
  const plain = await startServer(db);
  started.push(plain);
  const wide = await startServer(db, ["--backlog", "1024"]);
  started.push(wide);
  expect(readListenBacklog(portOf(plain))).toBe(511);
  expect(readListenBacklog(portOf(wide))).toBe(Math.min(1024, readSomaxconn() ?? 1024));
});
