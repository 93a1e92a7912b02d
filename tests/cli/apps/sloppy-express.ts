/**
 * A deliberately sloppy Express app, as many are: each planted violation of the conventions is
 * marked "planted"; the rest (a health check, a scoped list, HEAD, OPTIONS, ETags, the body parser's
 * 400 and 413) follows them, and the CLI must not report it. Its document is what such a team writes.
 */
import express from 'express';

const USERS: Record<string, { id: number; name: string }> = { 'alice-token': { id: 1, name: 'Alice' }, 'bob-token': { id: 2, name: 'Bob' } };

export const SLOPPY_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'orders', version: '1.0.0' },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Order: { type: 'object', properties: { id: { type: 'integer' }, item: { type: 'string' }, quantity: { type: 'integer' } } },
      NewOrder: { type: 'object', required: ['item', 'quantity'], properties: { item: { type: 'string', minLength: 1 }, quantity: { type: 'integer', minimum: 1 } } },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    '/health': { get: { security: [], responses: { '200': { description: 'OK' } } } },
    // planted: a verb in a path
    '/getUsers': { get: { responses: { '200': { description: 'the users' } } } },
    // planted: a vague name
    '/data1': { get: { responses: { '200': { description: 'some data' } } } },
    '/orders': {
      get: { responses: { '200': { description: 'the caller’s orders', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Order' } } } } } } },
      // planted: a create documented (and answered) as 200, without Location
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NewOrder' } } } },
        responses: { '200': { description: 'the new order', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } } },
      },
    },
    '/orders/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      // planted: an error described under a 200
      get: { responses: { '200': { description: 'the order, or an error if it is not found', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } } } },
      patch: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NewOrder' } } } }, responses: { '200': { description: 'the order' } } },
      delete: { responses: { '204': { description: 'deleted' } } },
    },
  },
};

export function createSloppyExpress(): express.Express {
  const orders = new Map([
    [1, { id: 1, owner: 1, item: 'Notebook', quantity: 2 }],
    [2, { id: 2, owner: 2, item: 'Pencil', quantity: 1 }],
  ]);
  let nextId = 3;
  const callerOf = (req: express.Request) => USERS[String(req.get('authorization') ?? '').replace(/^Bearer /, '')];
  const app = express();
  app.use(express.json());
  app.get('/openapi.json', (_req, res) => void res.json(SLOPPY_DOCUMENT));
  app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/getUsers', (_req, res) => void res.json(Object.values(USERS)));
  app.get('/data1', (_req, res) => void res.json({ value: 1 }));
  // planted: no credentials answers 403 (with an error object), not 401 with WWW-Authenticate
  app.use('/orders', (req, res, next) => (callerOf(req) === undefined ? void res.status(403).json({ error: 'forbidden' }) : next()));
  app.get('/orders', (req, res) => void res.json([...orders.values()].filter((order) => order.owner === callerOf(req)!.id)));
  // planted: 200 without Location
  app.post('/orders', (req, res) => {
    const order = { id: nextId++, owner: callerOf(req)!.id, item: req.body.item as string, quantity: req.body.quantity as number };
    orders.set(order.id, order);
    res.json(order);
  });
  // planted: an unknown id answers 200 with an error; anyone's order is readable (no owner check)
  app.get('/orders/:id', (req, res) => {
    const order = orders.get(Number(req.params.id));
    res.json(order ?? { error: 'Order not found' });
  });
  // planted: a body that is not JSON leaves req.body undefined, and Object.keys throws: a 500 with a stack trace
  app.patch('/orders/:id', (req, res) => {
    const order = orders.get(Number(req.params.id)) as Record<string, unknown> | undefined;
    if (order === undefined) return void res.status(404).json({ error: 'Order not found' });
    for (const key of Object.keys(req.body as object)) if (key === 'item' || key === 'quantity') order[key] = (req.body as Record<string, unknown>)[key];
    res.json(order);
  });
  app.delete('/orders/:id', (req, res) => {
    orders.delete(Number(req.params.id));
    res.status(204).end();
  });
  return app;
}
