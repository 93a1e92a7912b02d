/**
 * Runs one server of servers.mjs in this process, on 127.0.0.1 and a free port, and prints one JSON
 * line `{ port, pid }` once it listens. SIGTERM closes it and exits (so that `--cpu-prof` writes its
 * profile).
 *
 *   NODE_ENV=production node bench/peers/server.mjs "<server name>"
 */
import { serverNamed } from './servers.mjs';

const name = process.argv[2];
if (name === undefined) {
  console.error('usage: node bench/peers/server.mjs <server name>');
  process.exit(2);
}
const server = await serverNamed(name).listen();
process.once('SIGTERM', () => {
  // Keep-alive connections of the load generator may hold close() open: exit regardless.
  setTimeout(() => process.exit(0), 500).unref();
  server.close().then(() => process.exit(0));
});
console.log(JSON.stringify({ port: server.port, pid: process.pid }));
