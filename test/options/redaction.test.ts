// Secrets are never written: a quick bench against the bundled server with a recognisable token, an
// extra header and a ticket in the URL (latency and memory matrices, so samples are written too)
// leaves none of them in any file it wrote,
// nor on its stdout or stderr; results record only its sha256 prefix. The real token is still used:
// the bundled server accepts only that token, so ok rows prove it connected with it.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../hardening/support/harness.js";

const TOKEN = "SEKRIT-redaction-test-7f3a9c1e";
const HEADER_VALUE = "HDRSEKRIT-0b5e2d";
const TICKET = "TIXSEKRIT-93ad1f";
const TAG = `redacted (sha256 prefix ${createHash("sha256").update(TOKEN).digest("hex").slice(0, 8)})`;

const dir = mkdtempSync(join(tmpdir(), "catchup-redaction-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((f) => join(root, f))
    .filter((p) => statSync(p).isFile());
}

describe("token redaction", () => {
  it("no file the run wrote, nor its stdout or stderr, holds the token", async () => {
    const fixture = join(dir, "latency.sqlite");
    const made = await runCli(["fixture", "--projects", "3", "--events", "2", "--out", fixture], 60_000);
    expect(made.code, made.stderr).toBe(0);
    const out = join(dir, "run");
    const fixturesDir = join(dir, "fixtures");
    // The run's own temp files go here too, so they are searched as well.
    const tmp = join(dir, "tmp");
    mkdirSync(tmp);
    const r = await runCli(
      [
        "bench",
        "--token",
        TOKEN,
        "--header",
        `X-Api-Key: ${HEADER_VALUE}`,
        "--url-path",
        `/ws?wsTicket=${TICKET}`,
        "--fixture",
        fixture,
        "--fixtures-dir",
        fixturesDir,
        "--quick",
        "--cases",
        "snapshot",
        "--clients",
        "1",
        "--memory-trials",
        "1",
        "--no-aa",
        "--out",
        out,
      ],
      240_000,
      { TMPDIR: tmp },
    );
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
      run: { config: { token: string } };
      latency: { ok: boolean }[];
      memory: { ok: boolean }[];
    };
    // Connected with the real token: the server accepts no other.
    expect(results.latency.length).toBeGreaterThan(0);
    expect(results.latency.every((row) => row.ok)).toBe(true);
    expect(results.memory.length).toBeGreaterThan(0);
    // Recorded only as its digest.
    expect(results.run.config.token).toBe(TAG);

    const written = [...filesUnder(out), ...filesUnder(fixturesDir), ...filesUnder(tmp)];
    expect(written.some((f) => f.includes(`${join(out, "samples")}`))).toBe(true);
    expect(written.some((f) => f.endsWith("report.html"))).toBe(true);
    for (const secret of [TOKEN, HEADER_VALUE, TICKET]) {
      const holding = written.filter((f) => readFileSync(f).includes(secret));
      expect(holding, secret).toEqual([]);
      expect(r.stdout).not.toContain(secret);
      expect(r.stderr).not.toContain(secret);
    }
  }, 300_000);
});
