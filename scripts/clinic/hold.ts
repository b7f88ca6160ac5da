// clinic's --on-port command (run by clinic once the server listens, with PORT in the environment):
// report the port to the harness over a loopback socket, then wait until the harness closes that
// socket. When this process exits, clinic stops the server its own way (SIGINT, or its IPC stop for
// heapprofiler, which must write its profile before the server exits) and writes the HTML report.
import { connect } from "node:net";

const controlPort = Number(process.argv[2]);
if (!Number.isInteger(controlPort) || controlPort <= 0 || controlPort > 65535) {
  process.stderr.write(`hold: usage: node hold.js CONTROL_PORT (got ${JSON.stringify(process.argv[2])})\n`);
  process.exit(2);
}
const socket = connect({ host: "127.0.0.1", port: controlPort });
socket.setEncoding("utf8");
socket.on("connect", () => socket.write(`${process.env.PORT ?? ""}\n`));
// Any end of the connection (the harness finished, or died) releases the server.
socket.on("close", () => process.exit(0));
socket.on("error", (e) => {
  process.stderr.write(`hold: control connection failed: ${e.message}\n`);
});
socket.resume();
