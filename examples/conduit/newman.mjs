/**
 * `npm run conduit:newman -- <path to Conduit.postman_collection.json>`: serves the Conduit example
 * on a free port (on PGlite in memory, or on the Postgres server DATABASE_URL names) and runs the
 * RealWorld Postman collection against it with newman, with the collection's variables set (APIURL,
 * USERNAME, EMAIL, PASSWORD). Exits with 1 when an assertion fails.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import newman from 'newman';
import { toNodeListener } from 'restcanon/node';
import { BASE_PATH, createConduitApi } from './api.mjs';
import { openConduitDatabase } from './store.mjs';

const collection = process.argv[2];
if (collection === undefined) {
  console.error('Usage: npm run conduit:newman -- <path to Conduit.postman_collection.json>');
  process.exit(2);
}

const db = await openConduitDatabase();
const server = createServer(toNodeListener(createConduitApi(db))).listen(0, '127.0.0.1');
await once(server, 'listening');
// The collection registers its user: a server's database keeps the users of earlier runs, so each run there has a name of its own.
const name = db.kind === 'postgres' ? `rc_reader_${randomBytes(4).toString('hex')}` : 'rc_reader';
const variables = {
  APIURL: `http://127.0.0.1:${server.address().port}${BASE_PATH}`,
  USERNAME: name,
  EMAIL: `${name}@example.com`,
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
  await db.close();
}
