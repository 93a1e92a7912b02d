/**
 * `npm run conduit`: serves the Conduit example with restcanon's node adapter on PORT (default 3000).
 */
import { createServer } from 'node:http';
import { toNodeListener } from 'restcanon/node';
import { BASE_PATH, createConduitApi } from './api.mjs';

const server = createServer(toNodeListener(createConduitApi()));

server.listen(Number(process.env.PORT ?? 3000), () => {
  const base = `http://localhost:${server.address().port}${BASE_PATH}`;
  console.log(`Conduit API on ${base}`);
  console.log(`  curl -i ${base}/tags`);
  console.log(`  curl -i ${base}/openapi.json`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
