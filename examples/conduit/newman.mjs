/**
 * `npm run conduit:newman -- <path to Conduit.postman_collection.json>`: serves the Conduit example
 * on a free port and runs the RealWorld Postman collection against it with newman, with the
 * collection's variables set (APIURL, USERNAME, EMAIL, PASSWORD). Exits with 1 when an assertion fails.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import newman from 'newman';
import { toNodeListener } from 'restcanon/node';
import { BASE_PATH, createConduitApi } from './api.mjs';

const collection = process.argv[2];
if (collection === undefined) {
  console.error('Usage: npm run conduit:newman -- <path to Conduit.postman_collection.json>');
  process.exit(2);
}

const server = createServer(toNodeListener(createConduitApi())).listen(0, '127.0.0.1');
await once(server, 'listening');
const variables = {
  APIURL: `http://127.0.0.1:${server.address().port}${BASE_PATH}`,
  USERNAME: 'rc_reader',
  EMAIL: 'rc_reader@example.com',
  PASSWORD: 'conduit-password',
};

try {
  const summary = await new Promise((resolve, reject) => {
    const globalVar = Object.entries(variables).map(([key, value]) => ({ key, value }));
    newman.run({ collection, globalVar, reporters: ['cli'] }, (error, result) => (error ? reject(error) : resolve(result)));
  });
  const { assertions, requests } = summary.run.stats;
  console.log(`${requests.total} requests; assertions: ${assertions.total - assertions.failed} passed, ${assertions.failed} failed`);
  process.exitCode = summary.run.failures.length > 0 ? 1 : 0;
} finally {
  server.close();
}
