// What a binding's calls return, checked where they return it, and a call's limits: every message
// says what the binding returned or threw, with its kind, and never contradicts itself.
import { describe, expect, it } from "vitest";
import { BindingTimeoutError, callBinding, described, literal, thrownError } from "../../scripts/seed/binding-call.js";
import { checkedSummary, preparedToken, sequenceProblem } from "../../scripts/seed/binding-results.js";
import { pendingWaits } from "../../scripts/util/pending.js";

describe("a value as the messages show it", () => {
  it("names its kind, so a string that looks like a number is not mistaken for one", () => {
    expect(described("20")).toBe('the string "20"');
    expect(described(20)).toBe("the number 20");
    expect(described(undefined)).toBe("undefined");
    expect(described(null)).toBe("null");
    expect(described({ token: 12345 })).toBe("an object {token: 12345}");
    expect(described([1, "a"])).toBe('an array [1, "a"]');
    expect(literal({ "a-b": { c: { d: { e: 1 } } } })).toBe('{"a-b": {c: {d: {…}}}}');
    expect(literal("x".repeat(400))).toHaveLength(160);
  });
});

describe("what prepare returns", () => {
  const call = "the numeric binding's prepare";
  it("is nothing, or {token} with a non-empty string", () => {
    expect(preparedToken(undefined, call)).toEqual({ token: null });
    expect(preparedToken({}, call)).toEqual({ token: null });
    expect(preparedToken({ token: "abc" }, call)).toEqual({ token: "abc" });
  });

  it("names a token that is not a string (it would reach the server as a 401)", () => {
    expect(preparedToken({ token: 12345 }, call)).toEqual({
      error:
        "the numeric binding's prepare returned {token: 12345}: token must be a non-empty string (got the number 12345)",
    });
    expect(preparedToken({ token: "" }, call)).toMatchObject({ error: expect.stringContaining('(got the string "")') });
    expect(preparedToken("abc", call)).toEqual({
      error: 'the numeric binding\'s prepare returned the string "abc": it must return {token} or nothing',
    });
  });
});

describe("the sequence a write returns", () => {
  const call = "the notes binding's write";
  it("is a whole number above the previous write's", () => {
    expect(sequenceProblem(1, 0, call)).toBeNull();
    expect(sequenceProblem(8, 7, call)).toBeNull();
  });

  it('says "1" is a string, not that 1 is not above 0', () => {
    expect(sequenceProblem("1", 0, call)).toBe(
      'the notes binding\'s write returned the string "1": it must return the sequence the server assigned, a whole number',
    );
    expect(sequenceProblem(undefined, 3, call)).toMatch(/returned undefined: it must return the sequence/);
    expect(sequenceProblem(1.5, 0, call)).toMatch(/returned the number 1\.5: /);
  });

  it("tells a first write at 0 from one that does not climb", () => {
    expect(sequenceProblem(0, 0, call)).toBe(
      'the notes binding\'s write returned sequence 0: sequences must start above 0 (a resume cursor of 0 means "from the start")',
    );
    expect(sequenceProblem(5, 7, call)).toBe(
      "the notes binding's write returned sequence 5, not above the previous write's 7",
    );
  });
});

describe("what summarize returns", () => {
  const call = "the notes binding's summarize";
  it("is {projects, scriptBytes, sequence} of whole numbers", () => {
    expect(checkedSummary({ projects: 20, scriptBytes: 5120, sequence: 50 }, call)).toEqual({
      summary: { projects: 20, scriptBytes: 5120, sequence: 50 },
    });
  });

  it("names nothing returned, and the first field of the wrong kind", () => {
    expect(checkedSummary(undefined, call)).toEqual({
      error: "the notes binding's summarize returned undefined: it must return {projects, scriptBytes, sequence}",
    });
    expect(checkedSummary({ projects: "20", scriptBytes: 5120, sequence: 50 }, call)).toEqual({
      error:
        'the notes binding\'s summarize returned {projects: "20", scriptBytes: 5120, sequence: 50}: projects must be a whole number >= 0 (got the string "20")',
    });
    expect(checkedSummary({ projects: 20, scriptBytes: 5120 }, call)).toMatchObject({
      error: expect.stringMatching(/sequence must be a whole number >= 0 \(got undefined\)$/),
    });
  });
});

describe("a call into the binding", () => {
  const n = { name: "the notes binding's write", detail: " of event 3 (project.created)", where: "seed: a on f" };
  it("says what a binding threw that is not an Error", () => {
    expect(thrownError(undefined, n.name).message).toBe("the notes binding's write threw undefined (not an Error)");
    expect(thrownError("boom", n.name).message).toBe(
      'the notes binding\'s write threw the string "boom" (not an Error)',
    );
    expect(thrownError(new Error(""), n.name).message).toBe("the notes binding's write threw Error with no message");
    expect(thrownError(new Error("no such project"), n.name)).toMatchObject({
      message: "no such project",
      fromBinding: true,
    });
  });

  it("rejects at its deadline, naming the call and the flag", async () => {
    const never = callBinding(() => new Promise(() => {}), n, { timeoutMs: 50 });
    await expect(never).rejects.toBeInstanceOf(BindingTimeoutError);
    await expect(never).rejects.toThrow("the notes binding's write did not settle within 50 ms (--binding-timeout-ms)");
  });

  it("rejects at once with the stop's reason, and is listed as pending until then", async () => {
    const abort = new AbortController();
    const call = callBinding(() => new Promise(() => {}), n, { timeoutMs: 0, signal: abort.signal });
    await Promise.resolve();
    expect(pendingWaits()).toContain("the notes binding's write of event 3 (project.created) (seed: a on f)");
    const reason = new Error("stopped by SIGINT");
    abort.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(pendingWaits()).toEqual([]);
  });

  it("turns a synchronous throw into a rejection", async () => {
    await expect(
      callBinding(
        () => {
          throw undefined;
        },
        n,
        { timeoutMs: 0 },
      ),
    ).rejects.toThrow("the notes binding's write threw undefined (not an Error)");
  });
});
