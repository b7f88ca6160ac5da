// Secrets never reach what the harness writes. A secret (the bearer token, a header value the user
// gave) is registered once; every writer of results, logs and stderr passes its text through
// redact(), which replaces each registered secret, and any token in a URL query (`?token=`,
// `?wsTicket=`), an Authorization header or a `--token` argument, by `redacted (sha256 prefix
// XXXXXXXX)`: two runs with different tokens can still be told apart, and nothing can be replayed.
import { createHash } from "node:crypto";

/** How a secret appears in anything written: a short digest, never the value. */
export function secretTag(secret: string): string {
  return `redacted (sha256 prefix ${createHash("sha256").update(secret).digest("hex").slice(0, 8)})`;
}

const secrets = new Set<string>();

/**
 * Registers a secret for redaction in everything written from now on (a process-wide set). Any
 * length: a short token is still a credential. One shorter than SHORT_SECRET is replaced only where
 * it stands alone (not inside a longer word), so "abc" does not eat "abcdef".
 */
export function registerSecret(secret: string | null | undefined): void {
  if (secret) secrets.add(secret);
}

const SHORT_SECRET = 8;

/** Forgets every registered secret (tests). */
export function clearSecrets(): void {
  secrets.clear();
}

// Values that are secrets wherever they appear, whether registered or not.
const PATTERNS: RegExp[] = [
  // URL query parameters carrying credentials.
  /([?&](?:token|wsTicket|ticket|access_token|auth)=)((?!redacted \(sha256)[^&#\s"'<>]+)/gi,
  // Authorization headers, in text ("Authorization: Bearer x") or JSON ("authorization":"Bearer x").
  /(authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?)((?!redacted \(sha256)[^\s"',}]+)/gi,
  // A password in a URL's user part (`postgres://user:password@host/db`, a --history store).
  /([a-z][a-z0-9+.-]*:\/\/[^:@/\s"']*:)((?!redacted \(sha256)[^@/\s"']+)(?=@)/gi,
  // A --token argument inside a command line (e.g. a --target command); 8 characters or more, so
  // prose such as "--token and --token-file" is left alone.
  /(--token(?:=|\s+))((?!redacted \(sha256)[^\s"']{8,})/g,
];

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `text` with every secret replaced by its tag. */
export function redact(text: string): string {
  let out = text;
  // Longest first, so a secret containing another is replaced whole. Each in its raw and its
  // JSON-escaped form (a secret with a quote or backslash inside JSON text).
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    const tag = secretTag(s);
    for (const form of new Set([s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)])) {
      if (!out.includes(form)) continue;
      const re = escapeRegExp(form);
      out = out.replace(new RegExp(s.length < SHORT_SECRET ? `(?<![A-Za-z0-9])${re}(?![A-Za-z0-9])` : re, "g"), tag);
    }
  }
  for (const re of PATTERNS) {
    out = out.replace(re, (_m, prefix: string, value: string) => `${prefix}${secretTag(value)}`);
  }
  return out;
}

// Values that say what a record is, never user text: a short secret that spells one ("run") must not
// change the file's shape.
const STRUCTURAL_KEYS = new Set(["kind", "schema"]);

/**
 * `value` as JSON with every string value passed through redact(). Keys and the structural values
 * above are left alone.
 */
export function redactJson(value: unknown, space?: number): string {
  return JSON.stringify(
    value,
    (key, v: unknown) => (typeof v === "string" && !STRUCTURAL_KEYS.has(key) ? redact(v) : v),
    space,
  );
}

/**
 * Makes every later write to `stream` (process.stdout, process.stderr) pass through redact(), so no
 * log line, progress line or error message can carry a secret. Idempotent.
 */
export function redactStream(stream: NodeJS.WriteStream): void {
  const marked = stream as NodeJS.WriteStream & { __redacting?: boolean };
  if (marked.__redacting) return;
  marked.__redacting = true;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(
      typeof chunk === "string"
        ? redact(chunk)
        : chunk instanceof Uint8Array
          ? redact(Buffer.from(chunk).toString("utf8"))
          : chunk,
      ...rest,
    )) as typeof stream.write;
}
