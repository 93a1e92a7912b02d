/**
 * `npm start`: serves the demo API with restcanon's node adapter on PORT (default 3000), on PGlite in
 * memory, or on the Postgres server DATABASE_URL names; idempotency keys and rate-limit counts in
 * memory, or on the Redis server REDIS_URL names. It writes a PNG of one pixel to the temporary
 * folder, for the avatar upload it prints.
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toNodeListener } from 'restcanon/node';
import { DEMO_AVATAR_PNG } from './avatars.mjs';
import { createDemoApi, openDemoDatabase, openDemoStore } from './demo-api.mjs';

const port = Number(process.env.PORT ?? 3000);
const [db, keys] = await Promise.all([openDemoDatabase(), openDemoStore()]);
/** A word as a POSIX shell reads it back: quoted when it holds anything but letters, digits and `_@./:-`. */
const shellWord = (word) => (/^[\w@./:-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);
const avatar = join(tmpdir(), 'restcanon-demo-avatar.png');
await writeFile(avatar, DEMO_AVATAR_PNG);
const server = createServer(toNodeListener(createDemoApi(db, { store: keys.store })));

server.listen(port, () => {
  const base = `http://localhost:${port}`;
  console.log(`restcanon demo API on ${base}\n\nTry:`);
  console.log(`  curl -i ${base}/health`);
  console.log(`  curl -i ${base}/users/1`);
  console.log(`  curl -i -H 'Authorization: Bearer alice-token' ${base}/users/1`);
  console.log(`  curl -i -H 'Authorization: Bearer alice-token' ${base}/users/2`);
  console.log(`  curl -i -H 'Authorization: Bearer alice-token' -H 'If-None-Match: "1"' ${base}/users/1`);
  console.log(`  curl -i -X PATCH -H 'Authorization: Bearer alice-token' -H 'Content-Type: application/merge-patch+json' -H 'If-Match: "0"' -d '{"name":"Alicia"}' ${base}/users/1`);
  console.log(`  curl -i -H 'Authorization: Bearer alice-token' '${base}/users/1/orders?limit=1'`);
  console.log(`  curl -i -X OPTIONS -H 'Origin: http://localhost:5173' -H 'Access-Control-Request-Method: POST' ${base}/users/1/orders`);
  console.log(`  curl -i -H 'Authorization: Bearer alice-token' -H 'Content-Type: application/json' -d '{"item":"Stapler","quantity":1}' ${base}/users/1/orders`);
  console.log(`  curl -i -H 'Authorization: Bearer alice-token' -H 'Content-Type: application/json' -H 'Idempotency-Key: "order-7"' -d '{"item":"Ruler","quantity":1}' ${base}/users/1/orders`);
  console.log(`  curl -i -H 'Authorization: Bearer alice-token' -H 'Content-Type: application/json' -d '{"item":"","quantity":0}' ${base}/users/1/orders`);
  console.log(`  curl -i -X DELETE -H 'Authorization: Bearer alice-token' ${base}/users/1`);
  console.log(`  curl -i -X DELETE -H 'Authorization: Bearer admin-token' ${base}/users/2`);
  console.log(`  curl -i -X PUT -H 'Authorization: Bearer alice-token' -H 'Content-Type: image/png' --data-binary ${shellWord(`@${avatar}`)} ${base}/users/1/avatar`);
  console.log(`  curl -D - -OJ '${base}/users/1/avatar?download=1'`);
  console.log(`  curl -N -H 'Authorization: Bearer alice-token' ${base}/users/1/orders/events`);
  console.log(`  curl -i -X PUT ${base}/health`);
  console.log(`  curl -i ${base}/openapi.json`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => Promise.allSettled([db.close(), keys.close()]).finally(() => process.exit(0)));
    // An event stream never ends by itself: its connection is closed, as every other.
    server.closeAllConnections();
  });
}
