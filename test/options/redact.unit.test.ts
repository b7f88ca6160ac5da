// redact(): registered secrets (raw, JSON-escaped, URL-encoded) and credentials in URLs, headers and
// --token arguments become `redacted (sha256 prefix XXXXXXXX)`; ordinary text is left alone.
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { clearSecrets, redact, registerSecret, secretTag } from "../../scripts/util/redact.js";

const tag = (s: string) => `redacted (sha256 prefix ${createHash("sha256").update(s).digest("hex").slice(0, 8)})`;

afterEach(() => clearSecrets());

describe("redact", () => {
  it("tags a secret by the first 8 hex digits of its sha256", () => {
    expect(secretTag("abc")).toBe("redacted (sha256 prefix ba7816bf)");
  });

  it("replaces a registered secret wherever it appears, also JSON-escaped or URL-encoded", () => {
    const secret = 'tok"en/with+odd&chars';
    registerSecret(secret);
    const text = `a ${secret} b ${JSON.stringify({ token: secret })} c ${encodeURIComponent(secret)}`;
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(out.split(tag(secret))).toHaveLength(4);
  });

  it("redacts tokens in URL queries and passwords in URLs, Authorization headers and --token arguments, registered or not", () => {
    expect(redact("ws://127.0.0.1:9/ws?token=abc123&x=1")).toBe(`ws://127.0.0.1:9/ws?token=${tag("abc123")}&x=1`);
    expect(redact("GET /ws?wsTicket=T1CKET")).toBe(`GET /ws?wsTicket=${tag("T1CKET")}`);
    expect(redact("Authorization: Bearer eyJhbGciOi.x.y")).toBe(`Authorization: Bearer ${tag("eyJhbGciOi.x.y")}`);
    expect(redact('{"authorization":"Bearer s3cr3t"}')).toBe(`{"authorization":"Bearer ${tag("s3cr3t")}"}`);
    expect(redact("node server.js --token longsecret --port 1")).toBe(
      `node server.js --token ${tag("longsecret")} --port 1`,
    );
    expect(redact("node server.js --token=longsecret")).toBe(`node server.js --token=${tag("longsecret")}`);
    expect(redact("--history postgres://ci:pa%40ss@db:5432/bench")).toBe(
      `--history postgres://ci:${tag("pa%40ss")}@db:5432/bench`,
    );
  });

  it("leaves ordinary text, and text already redacted, as it was", () => {
    const prose = "--token and --token-file cannot be combined (give one); see ?help";
    expect(redact(prose)).toBe(prose);
    const once = redact("x?token=abc123 --token longsecret");
    expect(redact(once)).toBe(once);
  });
});
