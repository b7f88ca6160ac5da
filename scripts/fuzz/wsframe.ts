// Pure helpers for speaking raw WebSocket (RFC 6455) over a bare TCP socket: the fuzzer uses them for
// connection-level faults a WebSocket library will not produce (half-sent handshakes and frames,
// dropping the TCP connection in the middle of a server frame).

/** Opcodes (RFC 6455 §5.2). */
export const OPCODE = { text: 0x1, binary: 0x2, close: 0x8, ping: 0x9 } as const;

/** Encodes one final, masked client frame (clients must mask, RFC 6455 §5.3). */
export function encodeClientFrame(opcode: number, payload: Uint8Array, maskKey: Uint8Array): Uint8Array {
  if (maskKey.length !== 4) throw new RangeError("mask key must be 4 bytes");
  const len = payload.length;
  const extra = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const out = new Uint8Array(2 + extra + 4 + len);
  out[0] = 0x80 | (opcode & 0x0f);
  let p = 2;
  if (extra === 0) out[1] = 0x80 | len;
  else if (extra === 2) {
    out[1] = 0x80 | 126;
    out[2] = len >>> 8;
    out[3] = len & 0xff;
    p = 4;
  } else {
    out[1] = 0x80 | 127;
    // Lengths here are < 2^32: the high 4 bytes stay zero.
    out[6] = (len >>> 24) & 0xff;
    out[7] = (len >>> 16) & 0xff;
    out[8] = (len >>> 8) & 0xff;
    out[9] = len & 0xff;
    p = 10;
  }
  out.set(maskKey, p);
  p += 4;
  for (let i = 0; i < len; i++) out[p + i] = (payload[i] as number) ^ (maskKey[i % 4] as number);
  return out;
}

/** The HTTP/1.1 upgrade request for path (with query) on host:port, bearer token in a header. */
export function upgradeRequest(host: string, port: number, path: string, token: string | null, key: string): string {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${key}`,
    "Sec-WebSocket-Version: 13",
  ];
  if (token !== null) lines.push(`Authorization: Bearer ${token}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** The connection-level faults the fuzzer injects on raw sockets. */
export const HALF_OPEN_KINDS = [
  /** TCP connected, nothing sent. */
  "tcp-silent",
  /** Part of the HTTP upgrade request, then nothing. */
  "partial-upgrade",
  /** Upgraded, then the first half of a frame, then nothing. */
  "partial-frame",
  /** Upgraded, subscribed to a snapshot, never reads (the server's writes back up). */
  "no-read",
  /** Upgraded, subscribed to a snapshot, TCP dropped on the first bytes of the answer: mid-chunk. */
  "close-mid-chunk",
] as const;
export type HalfOpenKind = (typeof HALF_OPEN_KINDS)[number];
