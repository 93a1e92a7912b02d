/**
 * `npm run conduit`: serves the Conduit example with restcanon's node adapter on PORT (default 3000),
 * on PGlite in memory, or on the Postgres server DATABASE_URL names.
 */
import { createServer } from 'node:http';
import { toNodeListener } from 'restcanon/node';
import { BASE_PATH, createConduitApi } from './api.mjs';
import { openConduitDatabase } from './store.mjs';

const db = await openConduitDatabase();
const server = createServer(toNodeListener(createConduitApi(db)));

server.listen(Number(process.env.PORT ?? 3000), () => {
  const base = `http://localhost:${server.address().port}${BASE_PATH}`;
  console.log(`Conduit API on ${base}`);
  console.log(`  curl -i ${base}/tags`);
  console.log(`  curl -i ${base}/openapi.json`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => db.close().finally(() => process.exit(0))));
