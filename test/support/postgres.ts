// Test aid: a real PostgreSQL server of its own on a temporary data directory (Debian's `postgresql`
// binaries): loopback only, a free port, its socket in the directory, password auth over TCP (so a
// wrong password is refused) and trust over the socket (to create databases). A watchdog whose stdin
// this process holds stops the server and removes the directory when this process ends, however it
// ends. initdb refuses root: as root (CI) the server runs as the `postgres` user (else `nobody`).
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export const INSTALL_POSTGRES =
  "PostgreSQL server binaries (initdb, pg_ctl, createdb) not found: apt-get install postgresql (npm test does it as root)";

/** A regular file (a program covered by /dev/null, as the install test hides one, is not). */
const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The directory holding initdb: `pg_config --bindir`, else Debian's newest /usr/lib/postgresql/<ver>/bin. */
export function postgresBin(): string {
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", timeout: 10_000 }).trim();
    if (isFile(join(dir, "initdb"))) return dir;
  } catch {
    // No pg_config: look where Debian puts the server.
  }
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a)).find((v) => isFile(join(root, v, "bin", "initdb")));
  if (newest === undefined) throw new Error(INSTALL_POSTGRES);
  return join(root, newest, "bin");
}

/** Who runs the server: this user, or as root a user initdb accepts (with its uid and gid). */
function serverUser(): { prefix: string[]; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ["postgres", "nobody"]) {
    try {
      const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8", timeout: 5_000 }));
      return { prefix: ["runuser", "-u", name, "--"], uid: id("-u"), gid: id("-g") };
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error("running as root and neither a postgres nor a nobody user exists: initdb refuses root");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface PostgresServer {
  port: number;
  /** The temporary directory (data, socket, log): gone once stopped. */
  dir: string;
  /** The password of the `bench` superuser (TCP connections need it). */
  password: string;
  /** A URL of database `db` as user `bench` with `password` (the right one unless given). */
  url(db: string, password?: string): string;
  /** Creates database `name` (once; a second call is a no-op). */
  createDatabase(name: string): Promise<void>;
  /** Stops the server (immediate) and removes its directory. */
  stop(): Promise<void>;
}

const TIMEOUT_MS = 60_000;

/** Starts a server; throws naming what to install when PostgreSQL is missing. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "catchup-pg-"));
  const data = join(dir, "data");
  const password = "s3cret-pw";
  writeFileSync(join(dir, "pw"), `${password}\n`);
  if (user) for (const p of [dir, join(dir, "pw")]) chownSync(p, user.uid, user.gid);
  const as = (tool: string, args: string[]) => {
    const argv = [...(user?.prefix ?? []), join(bin, tool), ...args];
    return run(argv[0] as string, argv.slice(1), { timeout: TIMEOUT_MS });
  };
  const watchdog = startWatchdog(bin, user?.prefix ?? [], data, dir);
  const port = await freePort();
  try {
    await as(
      "initdb",
      ["-D", data, "-U", "bench", `--pwfile=${join(dir, "pw")}`, "--auth-local=trust"].concat([
        "--auth-host=scram-sha-256",
        "--no-sync",
        "--no-locale",
        "-E",
        "UTF8",
      ]),
    );
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${dir} -c fsync=off`;
    await as("pg_ctl", ["start", "-w", "-t", "60", "-D", data, "-l", join(dir, "server.log"), "-o", options]);
  } catch (e) {
    await endWatchdog(watchdog);
    throw e;
  }
  const created = new Set<string>();
  return {
    port,
    dir,
    password,
    url: (db, pw = password) => `postgres://bench:${encodeURIComponent(pw)}@127.0.0.1:${port}/${db}`,
    async createDatabase(name) {
      if (created.has(name)) return;
      await as("createdb", ["-h", dir, "-p", String(port), "-U", "bench", name]);
      created.add(name);
    },
    stop: () => endWatchdog(watchdog),
  };
}

/** A detached shell that waits for its stdin to close (this process ending), then stops and removes the server. */
function startWatchdog(bin: string, prefix: string[], data: string, dir: string): ChildProcess {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const stop = [...prefix, join(bin, "pg_ctl"), "stop", "-D", data, "-m", "immediate", "-t", "30"].map(q).join(" ");
  const script = `read _; [ -f ${q(join(data, "postmaster.pid"))} ] && ${stop} >/dev/null 2>&1; rm -rf ${q(dir)}`;
  const child = spawn("sh", ["-c", script], { stdio: ["pipe", "ignore", "ignore"], detached: true });
  child.unref();
  (child.stdin as unknown as Socket).unref();
  return child;
}

function endWatchdog(watchdog: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    if (watchdog.exitCode !== null) return resolve();
    const timer = setTimeout(
      () => reject(new Error("the PostgreSQL watchdog did not stop the server in 60 s")),
      60_000,
    );
    watchdog.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    watchdog.stdin?.end();
  });
}
