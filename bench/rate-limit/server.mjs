/**
 * The server of the rate-limit benchmark: restcanon's node adapter serving the users API of
 * lib/app.mjs, without a rate limit (`plain`) or with one policy on the in-memory store (`limited`),
 * whose quota no run reaches. It prints `{ port, pid }` once it listens; SIGTERM exits.
 *
 *   node bench/rate-limit/server.mjs plain|limited
 */
import { createServer } from 'node:http';
import { createUsersApi } from '../lib/app.mjs';
import { importRestcanon } from '../lib/dist.mjs';
import { serveOne } from '../lib/serve-one.mjs';

const restcanon = await importRestcanon('index.js');
const { toNodeListener } = await importRestcanon('node.js');
const { rateLimit } = await importRestcanon('rate-limit.js');

/** @param {string} name */
function serverNamed(name) {
  if (name !== 'plain' && name !== 'limited') throw new Error(`no server "${name}": plain or limited`);
  const options = name === 'limited' ? { use: [rateLimit({ policies: { default: { quota: 1_000_000_000, window: 3600 } } })] } : {};
  const api = createUsersApi(restcanon, options);
  return {
    async listen() {
      const server = createServer(toNodeListener(api));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port, close: () => new Promise((resolve) => server.close(resolve)) };
    },
  };
}

await serveOne(serverNamed, 'node bench/rate-limit/server.mjs plain|limited');
