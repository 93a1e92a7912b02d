/**
 * The server of the load benchmark: restcanon's node adapter (`toNodeListener`) serving the users API
 * of lib/app.mjs with a 1 KiB body limit, on 127.0.0.1 and a free port. It prints `{ port, pid }`
 * once it listens. Run it with --expose-gc: the IPC message 'heap' collects garbage and answers with
 * `process.memoryUsage()`. SIGTERM exits cleanly, so that `--cpu-prof` writes its profile.
 *
 *   node --expose-gc bench/load/server.mjs <body limit in bytes>
 */
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createUsersApi } from '../lib/app.mjs';
import { importRestcanon } from '../lib/dist.mjs';

const bodyLimit = Number(process.argv[2] ?? 1024);
const { toNodeListener } = await importRestcanon('node.js');
const api = createUsersApi(await importRestcanon('index.js'), { bodyLimit });
const server = createServer(toNodeListener(api));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

process.on('message', async (message) => {
  if (message !== 'heap') return;
  if (typeof globalThis.gc !== 'function') {
    process.send?.({ error: 'start the server with --expose-gc' });
    return;
  }
  // Closed sockets and the last responses are released over a few turns of the event loop.
  await sleep(200);
  for (let pass = 0; pass < 4; pass++) {
    globalThis.gc();
    await sleep(20);
  }
  const usage = process.memoryUsage();
  process.send?.({ heapUsed: usage.heapUsed, heapTotal: usage.heapTotal, rss: usage.rss, external: usage.external, arrayBuffers: usage.arrayBuffers, connections: await connectionCount() });
});
process.once('SIGTERM', () => process.exit(0));
// Without this, the IPC channel would keep the process alive after the parent is gone.
process.once('disconnect', () => process.exit(0));

function connectionCount() {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error ? -1 : count)));
}

console.log(JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port, pid: process.pid }));
