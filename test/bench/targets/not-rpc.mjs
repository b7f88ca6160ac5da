// Test target (plain JS, run as a real child process): an HTTP server on 127.0.0.1:PORT that
// answers every request, and refuses every WebSocket upgrade, with 404: reachable but not RPC.
import { createServer } from "node:http";

const port = Number(process.argv[2]);
const server = createServer((_req, res) => res.writeHead(404).end("not an rpc server\n"));
server.on("upgrade", (_req, socket) => socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"));
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
