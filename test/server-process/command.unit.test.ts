// A foreign target's command: {port}/{db} substitution, and `exec` only where the shell allows it.
import { describe, expect, it } from "vitest";
import { fillCommand, isSimpleCommand, shellScript, TargetError } from "../../scripts/server-process/command.js";

describe("shellScript", () => {
  it.each([
    ["node server.js --port 5", "exec node server.js --port 5"],
    ["  npx tsx 'my server.ts' --db /tmp/x ", "exec npx tsx 'my server.ts' --db /tmp/x"],
    ['node -e "console.log(1); x()"', 'exec node -e "console.log(1); x()"'],
    ["node s.js >log.txt 2>&1", "exec node s.js >log.txt 2>&1"],
    ["sleep 30 # {port}; not run", "exec sleep 30 # {port}; not run"],
    ["node a\\;b", "exec node a\\;b"],
  ])("execs one simple command: %s", (command, script) => {
    expect(isSimpleCommand(command)).toBe(true);
    expect(shellScript(command)).toBe(script);
  });

  it.each([
    "node a.js; exit $?",
    "cd srv && node a.js",
    "node a.js || true",
    "node a.js | tee log",
    "node a.js &",
    "(node a.js)",
    "PORT=5 node a.js",
    "exec node a.js",
    "exit 3",
    "if true; then node a.js; fi",
    "node $(which server)",
    "node `which server`",
    "node 'unterminated",
    "echo a\nnode b",
  ])("leaves anything else to the shell as given: %s", (command) => {
    expect(isSimpleCommand(command)).toBe(false);
    expect(shellScript(command)).toBe(command);
  });
});

describe("fillCommand", () => {
  it("fills every {port} and {db}", () => {
    expect(fillCommand("s --port {port} --db {db} # {port}", 41, "/tmp/a-1/f.sqlite")).toBe(
      "s --port 41 --db /tmp/a-1/f.sqlite # 41",
    );
  });
  it("refuses a db path with shell-unsafe characters", () => {
    expect(() => fillCommand("s {db}", 1, "/tmp/a b")).toThrow(TargetError);
    expect(() => fillCommand("s {db}", 1, "/tmp/$(x)")).toThrow(/unsafe in a shell command/);
  });
});
