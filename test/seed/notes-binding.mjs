// TEST AID: a binding for notes-server.mjs, written as a user would write one for their own server,
// from docs/bindings.md alone.

/** @type {import("../../bindings/binding.js").Binding} */
export default {
  name: "notes",
  kinds: ["project"],
  options: { prefix: "text put before every title (default: none)" },

  async prepare({ stateDir, run }) {
    const r = await run([
      process.execPath,
      new URL("notes-server.mjs", import.meta.url).pathname,
      "init",
      "--state",
      stateDir,
    ]);
    if (r.code !== 0) throw new Error(`notes-server init exited ${r.code}: ${r.stderr}`);
    return { token: JSON.parse(r.stdout).token };
  },

  async write(event, { rpc, options }) {
    const p = event.payload;
    const title = `${options.prefix ?? ""}${p.title}`;
    if (event.type === "project.created") {
      const scripts = p.scripts.map((s) => ({ id: s.id, name: s.name, command: s.command }));
      const { seq } = await rpc.call("Notes.Put", {
        project: { id: p.projectId, title, root: p.workspaceRoot, scripts },
      });
      return seq;
    }
    if (event.type === "project.meta-updated") {
      // A title update is a small write of the title alone, as the fixture's event is.
      const { seq } = await rpc.call("Notes.Rename", { id: p.projectId, title });
      return seq;
    }
    throw new Error(`no command for a ${event.type} event`);
  },

  summarize(items) {
    const state = items.find((i) => i.type === "state");
    if (!state) throw new Error("no state item before the ready marker");
    const scriptBytes = state.projects
      .flatMap((p) => p.scripts)
      .reduce((sum, s) => sum + Buffer.byteLength(s.command), 0);
    return { projects: state.projects.length, scriptBytes, sequence: state.seq };
  },
};
