// init's start command, read from package.json's start script (pure): the port (and, with a binding,
// the store) the script fixes is replaced by {port} ({state}) in its own command, never passed a
// second time through `npm start --`; what it changed is said.
import { describe, expect, it } from "vitest";
import { startPlan } from "../../scripts/options/starter-config.js";

const plan = (start: string | undefined, binding = false) => startPlan(start === undefined ? {} : { start }, binding);

describe("init's start command", () => {
  it.each([
    ["node dist/server.js --state ./data --port 8787", false, "node dist/server.js --state ./data --port {port}"],
    ["node dist/server.js --state ./data --port 8787", true, "node dist/server.js --state {state} --port {port}"],
    [
      "npm run build && node server.js --port=3000 --db=app.sqlite",
      true,
      "node server.js --port={port} --db={state}/app.sqlite",
    ],
    ["node server.js --port 1 --data ./var/store/", true, "node server.js --port {port} --data {state}"],
    ["PORT=8080 node server.js", false, "PORT={port} node server.js"],
    ["node server.js -p 9000", false, "node server.js -p {port}"],
    ["node server.js --data-dir ./d", false, "node server.js --data-dir ./d --port {port}"],
    ["node server.js", false, "npm start -- --port {port}"],
    ["node server.js", true, "npm start -- --port {port} --data-dir {state}"],
  ])("%j (binding %s) starts as %j", (script, binding, start) => {
    expect(plan(script, binding).start).toBe(start);
  });

  it("says what it changed, and what a shared store means without a binding", () => {
    expect(plan("node s.js --state ./data --port 8787").note).toBe(
      `package.json's start script fixes its port 8787 and store ./data ("node s.js --state ./data --port 8787"): "start" runs its command with {port} instead, so every trial gets a port of its own; the store ./data is then shared by every trial: seed a copy per trial with "binding" and {state}`,
    );
    expect(plan("node s.js").note).toBeNull();
  });

  it("leaves a script that is not one command to be written by hand, saying why", () => {
    const p = plan("node a.js --port 80; node b.js");
    expect(p.start).toBe("npm start -- --port {port}");
    expect(p.note).toMatch(
      /fixes its port 80 and is not one command .*write "start" as the command that starts the server/,
    );
    expect(plan(undefined).note).toMatch(/^package\.json has no start script/);
  });
});
