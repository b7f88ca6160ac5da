// TEST AID: a foreign target that starts, says so on stderr, and never listens on its port.
process.stderr.write("never-ready target: loading a very large model...\n");
setInterval(() => {}, 1000);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
