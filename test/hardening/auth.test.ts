// Auth and exposure: no token, wrong token, token in the wrong place, token without the
// scope, very long token -> 401 (or 431 for a header over Node's limit) or a tagged failure, with no
// fixture data in any error; the server and its inspector listen on loopback only.
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTarget } from "../../scripts/fuzz/server.js";
import { closeWithin } from "../../scripts/fuzz/ws-close.js";
import { listeningSockets } from "../../scripts/sampler/procfs.js";
import { type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { call, httpGet, tryUpgrade } from "./support/raw.js";

const FULL = "full-token-0123456789";
const READ = "read-token-0123456789";
const OPERATE = "operate-token-0123456789";

let fixtures: TempFixtures;
let dir: string;
let db: string;
let server: RunningServer;
/** Fixture strings that must never appear in an error: titles, workspace roots, script commands. */
let secrets: string[] = [];
/** A real project id, so an unauthorized command targets something that exists. */
let projectId = "";

function assertNoFixtureData(text: string, what: string): void {
  for (const s of secrets) expect(text.includes(s), `${what} leaks fixture data: ${s.slice(0, 60)}`).toBe(false);
  expect(text.includes(dir), `${what} leaks the fixture path`).toBe(false);
}

beforeAll(async () => {
  fixtures = tempFixtures();
  dir = fixtures.dir;
  db = fixtures.make("auth", { projects: 30, scriptBytes: 1024, events: 20 });
  // lean items: the snapshot item lists the projects itself
  server = await startServer(db, [
    "--item-shape",
    "lean",
    "--token",
    FULL,
    "--token",
    `${READ}:orchestration:read`,
    "--token",
    `${OPERATE}:orchestration:operate`,
  ]);
  // Read the fixture's visible content through a legitimate snapshot.
  const up = await tryUpgrade(server.url, { headers: { authorization: `Bearer ${FULL}` } });
  if (up.kind !== "open") throw new Error(`full token refused: ${JSON.stringify(up)}`);
  const { values } = await call(
    up.ws,
    "1",
    "orchestration.subscribeShell",
    { requestCompletionMarker: true },
    { untilKind: "synchronized" },
  );
  const snapshot = values.find((v) => (v as { kind?: string }).kind === "snapshot") as {
    projects: { id: string; title: string; workspaceRoot: string; scripts: { command: string }[] }[];
  };
  projectId = snapshot.projects[0]?.id ?? "";
  secrets = snapshot.projects.flatMap((p) => [
    p.title,
    p.workspaceRoot,
    ...p.scripts.map((s) => s.command.slice(0, 80)),
  ]);
  expect(secrets.length).toBeGreaterThan(30);
  await closeWithin(up.ws);
});

afterAll(async () => {
  await server?.stop();
  fixtures?.cleanup();
});

describe("upgrade without a valid token in the Authorization header or ?token=", () => {
  const longToken = (n: number) => "t".repeat(n);
  const cases: {
    name: string;
    path?: string;
    headers?: Record<string, string>;
    protocols?: string[];
    status: number[];
    reset?: boolean;
  }[] = [
    { name: "no token", status: [401] },
    { name: "wrong token", headers: { authorization: "Bearer not-a-token" }, status: [401] },
    {
      name: "the dev token when --token is given",
      headers: { authorization: "Bearer catchup-dev-token" },
      status: [401],
    },
    { name: "empty bearer", headers: { authorization: "Bearer " }, status: [401] },
    {
      name: "token as Basic credentials",
      headers: { authorization: `Basic ${Buffer.from(`${FULL}:`).toString("base64")}` },
      status: [401],
    },
    { name: "token with another scheme", headers: { authorization: `Token ${FULL}` }, status: [401] },
    { name: "token as a bare Authorization value", headers: { authorization: FULL }, status: [401] },
    { name: "token in a cookie", headers: { cookie: `token=${FULL}` }, status: [401] },
    { name: "token in X-Token", headers: { "x-token": FULL }, status: [401] },
    { name: "token in Sec-WebSocket-Protocol", protocols: [FULL], status: [401] },
    { name: "token in ?access_token=", path: `?access_token=${FULL}`, status: [401] },
    { name: "token in the path", path: `/${FULL}`, status: [401, 404] },
    { name: "token with a suffix", headers: { authorization: `Bearer ${FULL}x` }, status: [401] },
    { name: "token prefix", headers: { authorization: `Bearer ${FULL.slice(0, -1)}` }, status: [401] },
    { name: "8 KiB token", headers: { authorization: `Bearer ${longToken(8 * 1024)}` }, status: [401] },
    {
      name: "64 KiB token (over Node's header limit)",
      headers: { authorization: `Bearer ${longToken(64 * 1024)}` },
      status: [401, 431],
      // Node answers 431 and closes; the client may see the reset before the answer. Either way: no upgrade.
      reset: true,
    },
    { name: "8 KiB token in the query", path: `?token=${longToken(8 * 1024)}`, status: [401] },
  ];
  for (const c of cases) {
    it(`${c.name}: HTTP ${c.status.join(" or ")}, no upgrade, no fixture data`, async () => {
      const url = `${server.url}${c.path ?? ""}`;
      const r = await tryUpgrade(url, { headers: c.headers ?? {}, protocols: c.protocols ?? [] });
      if (r.kind === "open") await closeWithin(r.ws);
      if (c.reset && r.kind === "error") {
        expect(r.message).toMatch(/ECONNRESET|EPIPE|socket hang up/);
        return;
      }
      expect(r.kind, JSON.stringify(r).slice(0, 200)).toBe("refused");
      if (r.kind !== "refused") return;
      expect(c.status).toContain(r.status);
      assertNoFixtureData(r.body, c.name);
    });
  }

  it("the right token in the header or the query upgrades (the refusals above are about the token)", async () => {
    for (const options of [{ headers: { authorization: `Bearer ${FULL}` } }, {}]) {
      const url = "headers" in options ? server.url : `${server.url}?token=${FULL}`;
      const r = await tryUpgrade(url, options);
      expect(r.kind).toBe("open");
      if (r.kind === "open") await closeWithin(r.ws);
    }
  });

  it("a plain HTTP GET on /ws without a token is 401 and shows no fixture data", async () => {
    const r = await httpGet(server.url.replace(/^ws:/, "http:"));
    expect(r.status).toBe(401);
    assertNoFixtureData(r.body, "GET /ws");
  });
});

describe("a token without the scope: a tagged failure, the connection stays up", () => {
  async function open(token: string) {
    const r = await tryUpgrade(server.url, { headers: { authorization: `Bearer ${token}` } });
    if (r.kind !== "open") throw new Error(`upgrade refused: ${JSON.stringify(r)}`);
    return r.ws;
  }
  const dispatch = { type: "project.update", projectId: "", title: "scope-test" };

  it("read-only token: dispatchCommand fails with AuthorizationError(orchestration:operate); reads still work", async () => {
    const ws = await open(READ);
    try {
      const r = await call(ws, "2", "orchestration.dispatchCommand", { ...dispatch, projectId });
      expect(r.exit?.success).toBe(false);
      expect(r.exit?.raw).toContain('"AuthorizationError"');
      expect(r.exit?.raw).toContain('"orchestration:operate"');
      assertNoFixtureData(r.exit?.raw ?? "", "AuthorizationError");
      const again = await call(ws, "3", "server.getConfig", {});
      expect(again.exit?.success).toBe(true);
      // Nothing was appended: the project's title is not the refused command's.
      const snap = await call(
        ws,
        "4",
        "orchestration.subscribeShell",
        { requestCompletionMarker: true },
        { untilKind: "synchronized" },
      );
      const projects = (snap.values[0] as { projects: { id: string; title: string }[] }).projects;
      expect(projects.find((p) => p.id === projectId)?.title).not.toBe("scope-test");
    } finally {
      await closeWithin(ws);
    }
  });

  it("operate-only token: subscribeShell and getConfig fail with AuthorizationError(orchestration:read)", async () => {
    const ws = await open(OPERATE);
    try {
      for (const [id, tag, payload] of [
        ["1", "orchestration.subscribeShell", { requestCompletionMarker: true }],
        ["2", "server.getConfig", {}],
      ] as const) {
        const r = await call(ws, id, tag, payload);
        expect(r.values, `${tag} must not stream data`).toEqual([]);
        expect(r.exit?.success).toBe(false);
        expect(r.exit?.raw).toContain('"AuthorizationError"');
        expect(r.exit?.raw).toContain('"orchestration:read"');
        assertNoFixtureData(r.exit?.raw ?? "", tag);
      }
      expect(ws.readyState).toBe(ws.OPEN);
    } finally {
      await closeWithin(ws);
    }
  });

  it("a full token in the RPC headers, or a forged session header, does not lift a read-only connection", async () => {
    const ws = await open(READ);
    try {
      const attempts: [string, string][][] = [
        [["authorization", `Bearer ${FULL}`]],
        [["x-catchup-session", "00000000-0000-4000-8000-000000000000"]],
        [
          ["token", FULL],
          ["authorization", `Bearer ${FULL}`],
        ],
      ];
      let id = 10;
      for (const headers of attempts) {
        const r = await call(
          ws,
          String(id++),
          "orchestration.dispatchCommand",
          { ...dispatch, projectId },
          { headers },
        );
        expect(r.exit?.success, JSON.stringify(headers)).toBe(false);
        expect(r.exit?.raw).toContain('"AuthorizationError"');
      }
    } finally {
      await closeWithin(ws);
    }
  });

  it("the server is still healthy after all of the above", async () => {
    const ws = await open(FULL);
    const r = await call(ws, "1", "server.getConfig", {});
    expect(r.exit?.success).toBe(true);
    await closeWithin(ws);
    expect(server.child.exitCode).toBeNull();
  });
});

/** Non-loopback IPv4 addresses of this machine's own interfaces. */
function ownAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === "IPv4" && !a.internal)
    .map((a) => (a as { address: string }).address);
}

/** Resolves "connected" or the error code (ECONNREFUSED, ...) of a TCP connect, bounded. */
function tcpProbe(host: string, port: number, timeoutMs = 3_000): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const timer = setTimeout(() => {
      s.destroy();
      resolve("timeout");
    }, timeoutMs);
    s.once("connect", () => {
      clearTimeout(timer);
      s.destroy();
      resolve("connected");
    });
    s.once("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(e.code ?? e.message);
    });
  });
}

describe("exposure: the server and its inspector listen on loopback only", () => {
  const own = ownAddresses();

  it("every listening socket of the bundled server (RPC port and inspector) is bound to 127.0.0.1", async () => {
    const target = await startTarget({ db });
    try {
      const sockets = listeningSockets(target.pid);
      const serverPort = Number(new URL(target.url).port);
      const inspectorPort = Number(new URL(target.inspectorUrl).port);
      const ports = sockets.map((s) => s.port);
      expect(ports).toContain(serverPort);
      expect(ports).toContain(inspectorPort);
      for (const s of sockets) expect(s.address, `port ${s.port}`).toBe("127.0.0.1");
    } finally {
      await target.stop();
    }
  });

  it.skipIf(own.length === 0)(
    `the inspector and server ports refuse connections on this machine's own address (${own[0] ?? "none"})`,
    async () => {
      const address = own[0] as string;
      // Positive control: a listener bound to that address IS reachable, so a refusal below means
      // "not listening there", not "this probe cannot reach the address".
      const { createServer } = await import("node:net");
      const control = createServer((s) => s.destroy());
      await new Promise<void>((resolve, reject) => {
        control.once("error", reject);
        control.listen(0, address, () => resolve());
      });
      const controlPort = (control.address() as { port: number }).port;
      expect(await tcpProbe(address, controlPort)).toBe("connected");
      await new Promise<void>((resolve) => control.close(() => resolve()));

      const target = await startTarget({ db });
      try {
        const inspectorPort = Number(new URL(target.inspectorUrl).port);
        const serverPort = Number(new URL(target.url).port);
        expect(await tcpProbe("127.0.0.1", inspectorPort)).toBe("connected");
        expect(await tcpProbe(address, inspectorPort)).toBe("ECONNREFUSED");
        expect(await tcpProbe(address, serverPort)).toBe("ECONNREFUSED");
      } finally {
        await target.stop();
      }
    },
  );
});
