/**
 * The body of a benchmark's server.mjs: runs the server of `serverNamed(process.argv[2])` in this
 * process, on 127.0.0.1 and a free port, and prints one JSON line `{ port, pid }` once it listens.
 * SIGTERM closes it and exits (so that `--cpu-prof` writes its profile).
 */

/**
 * @param {(name: string) => { listen: () => Promise<{ port: number, close: () => Promise<void> }> }} serverNamed
 * @param {string} usage the usage line printed (exit 2) when no name is given
 */
export async function serveOne(serverNamed, usage) {
  const name = process.argv[2];
  if (name === undefined) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  const server = await serverNamed(name).listen();
  process.once('SIGTERM', () => {
    // Keep-alive connections of the load generator may hold close() open: exit regardless.
    setTimeout(() => process.exit(0), 500).unref();
    server.close().then(() => process.exit(0));
  });
  console.log(JSON.stringify({ port: server.port, pid: process.pid }));
}
