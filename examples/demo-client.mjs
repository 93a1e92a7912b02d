/**
 * `npm run demo:client`: calls every endpoint of the demo API through restcanon/client and prints
 * each answer. It serves the demo on an ephemeral port itself, or calls DEMO_URL when that is set
 * (such as DEMO_URL=http://localhost:3000 beside `npm start`). It exits 0 when every answer has the
 * status it expects, 1 otherwise.
 */
import { createServer } from 'node:http';
import { createClient } from 'restcanon/client';
import { toNodeListener } from 'restcanon/node';
import { createDemoApi, openDemoDatabase } from './demo-api.mjs';

let server;
let db;
let baseUrl = process.env.DEMO_URL;
if (baseUrl === undefined) {
  db = await openDemoDatabase();
  server = createServer(toNodeListener(createDemoApi(db)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}`;
}

/** @typedef {import('restcanon/client').Client<ReturnType<typeof createDemoApi>>} DemoClient A client typed from the demo API (in TypeScript: createClient<typeof api>). */
/** @type {DemoClient} */
const anonymous = createClient({ baseUrl });
/** @type {DemoClient} */
const alice = createClient({ baseUrl, headers: { authorization: 'Bearer alice-token' }, etags: true });
/** @type {DemoClient} */
const admin = createClient({ baseUrl, headers: { authorization: 'Bearer admin-token' } });

let surprises = 0;

/** Prints an answer, and counts it as a surprise unless its status is the one expected. */
function show(call, expected, answer) {
  const shown = answer.ok ? answer.body : answer.problem;
  const mark = answer.status === expected ? 'ok' : `SURPRISE, expected ${expected}`;
  console.log(`${call} → ${answer.status} (${mark})\n  ${JSON.stringify(shown)?.slice(0, 300)}`);
  if (answer.status !== expected) surprises++;
  return answer;
}

try {
  show('GET /health', 200, await anonymous.get('/health'));
  show('GET /openapi.json', 200, await anonymous.get('/openapi.json'));
  show('GET /users (anonymous)', 401, await anonymous.get('/users'));
  show('GET /users (Alice)', 200, await alice.get('/users'));
  show('GET /users/:id (Alice, herself)', 200, await alice.get('/users/:id', { params: { id: 1 } }));
  show('GET /users/:id (Alice, again: If-None-Match from the kept ETag)', 304, await alice.get('/users/:id', { params: { id: 1 } }));
  show('GET /users/:id (Alice, Bob)', 403, await alice.get('/users/:id', { params: { id: 2 } }));
  const created = show('POST /users (admin)', 201, await admin.post('/users', { body: { name: 'Grace', email: 'grace@example.com' } }));
  const id = created.ok ? created.body.id : 0;
  show('POST /users (invalid)', 400, await admin.post('/users', { body: { name: '', email: 'not an email' } }));
  show('PUT /users/:id (admin)', 200, await admin.put('/users/:id', { params: { id }, body: { name: 'Grace Hopper', email: 'grace@example.com' } }));
  show('PATCH /users/:id (Alice, merge patch, If-Match from the kept ETag)', 200, await alice.patch('/users/:id', { params: { id: 1 }, body: { name: 'Alicia' }, headers: { 'content-type': 'application/merge-patch+json' } }));
  show('PATCH /users/:id (Alice, a stale If-Match)', 412, await alice.patch('/users/:id', { params: { id: 1 }, body: { name: 'Al' }, headers: { 'if-match': '"1"' } }));
  for await (const page of alice.pages('/users/:userId/orders', { params: { userId: 1 }, query: { limit: 1, sort: 'item' } })) {
    console.log(`GET /users/:userId/orders (a page of one) → ${JSON.stringify(page.items)}${page.next ? ', next' : ''}`);
  }
  const order = show('POST /users/:userId/orders (Alice)', 201, await alice.post('/users/:userId/orders', { params: { userId: 1 }, body: { item: 'Stapler', quantity: 1 } }));
  const orderId = order.ok ? order.body.id : 0;
  show('GET /users/:userId/orders/:id (Alice)', 200, await alice.get('/users/:userId/orders/:id', { params: { userId: 1, id: orderId } }));
  show('PATCH /users/:userId/orders/:id (Alice)', 200, await alice.patch('/users/:userId/orders/:id', { params: { userId: 1, id: orderId }, body: { quantity: 3 } }));
  show('DELETE /users/:userId/orders/:id (Alice)', 200, await alice.delete('/users/:userId/orders/:id', { params: { userId: 1, id: orderId } }));
  show('GET /users/:userId/orders/:id (Alice, removed)', 404, await alice.get('/users/:userId/orders/:id', { params: { userId: 1, id: orderId } }));
  show('DELETE /users/:id (Alice, not an admin)', 403, await alice.delete('/users/:id', { params: { id } }));
  show('DELETE /users/:id (admin)', 200, await admin.delete('/users/:id', { params: { id } }));
} finally {
  server?.close();
  await db?.close();
}

console.log(surprises === 0 ? '\nEvery answer was the expected one.' : `\n${surprises} surprise(s).`);
process.exitCode = surprises === 0 ? 0 : 1;
