// JSON serialization (one message per text frame) with a shape check on incoming messages.
// Stock @effect/rpc 0.76 closes a socket silently when a message has an id BigInt() rejects
// ("abc"), a Request lacks its headers array, or the frame is JSON but not an object: the error
// is thrown inside the socket loop. Rejecting those here turns each into a Defect frame instead
// (the protocol's answer to a bad message) and the connection stays usable. Deeply nested JSON is
// refused too: formatting the schema error for it never finished (the socket stalled).
import * as RpcSerialization from "@effect/rpc/RpcSerialization";
import * as Layer from "effect/Layer";

function validId(value: unknown): boolean {
  if (typeof value !== "string") return typeof value === "number"; // numbers: the server answers with its own Defect
  try {
    BigInt(value);
    return true;
  } catch {
    return false;
  }
}

function validHeaders(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every((h) => Array.isArray(h) && h.length === 2 && typeof h[0] === "string" && typeof h[1] === "string")
  );
}

/** Deeper JSON than this is refused: schema error formatting recurses over the value. */
export const MAX_MESSAGE_DEPTH = 64;

/** Nesting depth of a parsed JSON value, stopping early once past `limit` (iterative: no stack risk). */
export function jsonDepth(value: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Throws an Error describing the first problem that would otherwise kill or stall the socket. */
export function checkMessage(message: unknown): void {
  if (typeof message !== "object" || message === null) throw new Error("a message must be a JSON object");
  if (jsonDepth(message, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH) {
    throw new Error(`a message must not nest deeper than ${MAX_MESSAGE_DEPTH} levels`);
  }
  if (Array.isArray(message)) return; // the server answers arrays with "Unknown request tag"
  const m = message as Record<string, unknown>;
  switch (m._tag) {
    case "Request":
      if (!validId(m.id)) throw new Error(`Invalid request id: ${JSON.stringify(m.id)} (a decimal string is expected)`);
      if (!validHeaders(m.headers)) throw new Error("Request headers must be an array of [name, value] string pairs");
      return;
    case "Ack":
    case "Interrupt":
      if (typeof m.requestId !== "string" || !validId(m.requestId)) {
        throw new Error(`Invalid ${m._tag} requestId: ${JSON.stringify(m.requestId)} (a decimal string is expected)`);
      }
      return;
  }
}

export const checkedJson: RpcSerialization.RpcSerialization["Type"] = RpcSerialization.RpcSerialization.of({
  contentType: RpcSerialization.json.contentType,
  includesFraming: false,
  unsafeMake: () => {
    const inner = RpcSerialization.json.unsafeMake();
    return {
      decode: (bytes) => {
        const messages = inner.decode(bytes);
        for (const m of messages) checkMessage(m);
        return messages;
      },
      encode: (response) => inner.encode(response),
    };
  },
});

export const layerCheckedJson = Layer.succeed(RpcSerialization.RpcSerialization, checkedJson);
