// The binding skeleton `init --binding` writes (pure): the contract's shape with its JSDoc type, so an
// editor checks it, and the steps to fill it in. Until they are, a run stops at the first event with
// one line saying which function is not filled in.

/** bench/binding.mjs for a server named `name` (package.json's name). */
export function bindingSkeleton(name: string): string {
  return `// Seeds this server from catchup-bench's fixture through its own API, before the trials. \`bench\`
// runs prepare once on an empty state folder, starts the server on it ({state} in "start" of
// catchup-bench.config.json), hands write every fixture event (several in flight, see order), then reads the server's
// snapshot back through summarize and checks it holds the fixture. Every trial starts on a copy.
// The contract: node_modules/catchup-bench/bindings/binding.d.ts; the guide: catchup-bench's
// docs/bindings.md.
//
// To fill in:
//   1. prepare: make the empty state folder your server's (its CLI's init, a token), or remove it.
//   2. write: one fixture event -> your server's RPC calls; return the sequence it assigned.
//   3. summarize: from the snapshot's items, the live projects, their script bytes, the sequence.
//   4. catchup-bench.config.json: {state} in "start" where your server keeps its store; the
//      subscription keys (subscribe-tag, subscribe-payload, url-path, completion) for your server.
//   5. npx catchup-bench bench --quick

/** @type {import("catchup-bench/bindings/binding.js").Binding} */
export default {
  name: ${JSON.stringify(name)},
  // The aggregate kinds written: "project", and "thread" for the thread cases.
  kinds: ["project"],
  // The order your server needs its writes in: "entity" keeps up to --seed-window writes in flight
  // (an entity's writes one after another, the resume cursor kept exact); "strict" writes one at a
  // time, for a server that needs every write answered before the next arrives.
  order: "entity",
  // Paths in the state folder left out of the template (your server's logs, say).
  exclude: [],
  // The --binding-option keys it takes, each with what it does; any other key is refused.
  options: {},

  async prepare({ stateDir, log }) {
    // e.g. (with \`run\` from the context) const r = await run(["node", "dist/cli.js", "init", "--data-dir", stateDir]);
    //      if (r.code !== 0) throw new Error(\`init exited \${r.code}: \${r.stderr}\`);
    //      return { token: JSON.parse(r.stdout).token };
    log(\`prepare: \${stateDir} left empty (fill in prepare() in bench/binding.mjs if your server must create its store)\`);
    return {};
  },

  async write(event, { rpc }) {
    // event: {sequence, type, aggregateKind, streamId, occurredAt, payload, metadata}
    //   "project.created": payload {projectId, title, workspaceRoot, scripts: [{id, name, command, icon, runOnWorktreeCreate}]}
    //   "project.meta-updated": payload {projectId, title}
    // e.g. const { sequence } = await rpc.call("Projects.Upsert", { id: event.payload.projectId, title: event.payload.title });
    //      return sequence;
    throw new Error(\`bench/binding.mjs: write() is not filled in yet (fixture event \${event.sequence}, \${event.type})\`);
  },

  summarize(items) {
    // items: the snapshot subscription's values, up to and including the completion marker.
    // return { projects, scriptBytes, sequence };
    throw new Error(\`bench/binding.mjs: summarize() is not filled in yet (\${items.length} items)\`);
  },
};
`;
}
