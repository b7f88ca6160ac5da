// Test support: server frames in the two Effect RPC wire dialects, written by hand
// from the documented shapes. Effect 3: ids echoed normalised, cause as a tree. Effect 4: ids
// echoed exactly as sent, flat cause array, void success as `value: null`, optional `headers`.
export interface Dialect {
  name: string;
  chunk: (requestId: string, values: unknown[]) => string;
  success: (requestId: string, value: unknown) => string;
  fail: (requestId: string, error: unknown) => string;
  die: (requestId: string, defect: unknown) => string;
}

export const effect3: Dialect = {
  name: "Effect 3",
  chunk: (requestId, values) => JSON.stringify({ _tag: "Chunk", requestId, values }),
  success: (requestId, value) =>
    JSON.stringify({ _tag: "Exit", requestId, exit: { _tag: "Success", ...(value === undefined ? {} : { value }) } }),
  fail: (requestId, error) =>
    JSON.stringify({
      _tag: "Exit",
      requestId,
      exit: { _tag: "Failure", cause: { _tag: "Sequential", left: { _tag: "Empty" }, right: { _tag: "Fail", error } } },
    }),
  die: (requestId, defect) =>
    JSON.stringify({ _tag: "Exit", requestId, exit: { _tag: "Failure", cause: { _tag: "Die", defect } } }),
};

export const effect4: Dialect = {
  name: "Effect 4",
  chunk: (requestId, values) => JSON.stringify({ _tag: "Chunk", requestId, values, headers: [] }),
  success: (requestId, value) =>
    JSON.stringify({ _tag: "Exit", requestId, exit: { _tag: "Success", value: value ?? null }, headers: [] }),
  fail: (requestId, error) =>
    JSON.stringify({ _tag: "Exit", requestId, exit: { _tag: "Failure", cause: [{ _tag: "Fail", error }] } }),
  die: (requestId, defect) =>
    JSON.stringify({ _tag: "Exit", requestId, exit: { _tag: "Failure", cause: [{ _tag: "Die", defect }] } }),
};
