/**
 * A Fastify app with Fastify's default error handling, written with care elsewhere: 201 with Location,
 * owner checks, Fastify's own 400, 413 and 415. Planted, where its defaults or a hurried line break
 * the conventions: a 401 without WWW-Authenticate, an unknown id that throws (the default handler
 * answers 500 and echoes the error's message, a database URL with its password), JSON errors that are
 * not problem bodies, and no 405 or OPTIONS.
 */
import Fastify, { type FastifyInstance } from 'fastify';

const TOKENS: Record<string, string> = { 'Bearer alice-token': 'alice', 'Bearer bob-token': 'bob' };

export const FASTIFY_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'items', version: '1.0.0' },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Item: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
      NewItem: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 100 } } },
      Problem: { type: 'object', properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' } } },
    },
    responses: {
      Problem: { description: 'a problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      Unauthorized: {
        description: 'no credentials',
        headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    '/items': {
      get: { responses: { '200': { description: 'the caller’s items' }, '401': { $ref: '#/components/responses/Unauthorized' }, '500': { $ref: '#/components/responses/Problem' } } },
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NewItem' } } } },
        responses: {
          '201': { description: 'the new item', headers: { Location: { schema: { type: 'string' } } } },
          '400': { $ref: '#/components/responses/Problem' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '500': { $ref: '#/components/responses/Problem' },
        },
      },
    },
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        responses: {
          '200': { description: 'the item' },
          '400': { $ref: '#/components/responses/Problem' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '403': { $ref: '#/components/responses/Problem' },
          '404': { $ref: '#/components/responses/Problem' },
          '500': { $ref: '#/components/responses/Problem' },
        },
      },
      delete: {
        responses: {
          '204': { description: 'deleted' },
          '400': { $ref: '#/components/responses/Problem' },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '403': { $ref: '#/components/responses/Problem' },
          '404': { $ref: '#/components/responses/Problem' },
          '500': { $ref: '#/components/responses/Problem' },
        },
      },
    },
  },
};

export function createFastifyDefault(): FastifyInstance {
  const items = new Map([
    ['1', { id: '1', owner: 'alice', name: 'Lamp' }],
    ['2', { id: '2', owner: 'bob', name: 'Desk' }],
  ]);
  let nextId = 3;
  const app = Fastify();
  app.decorateRequest('user', '');
  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/openapi.json') return;
    const user = TOKENS[String(request.headers.authorization)];
    // planted: a 401 without WWW-Authenticate
    if (user === undefined) return reply.code(401).send({ error: 'a token is needed' });
    (request as unknown as { user: string }).user = user;
  });
  const userOf = (request: unknown): string => (request as { user: string }).user;
  app.get('/openapi.json', async () => FASTIFY_DOCUMENT);
  app.get('/items', async (request) => [...items.values()].filter((item) => item.owner === userOf(request)).map(({ id, name }) => ({ id, name })));
  app.post('/items', async (request, reply) => {
    const { name } = request.body as { name?: unknown };
    if (typeof name !== 'string' || name === '') return reply.code(400).type('application/problem+json').send({ title: 'Bad Request', status: 400, detail: 'name is required' });
    const item = { id: String(nextId++), owner: userOf(request), name };
    items.set(item.id, item);
    return reply.code(201).header('location', `/items/${item.id}`).send({ id: item.id, name });
  });
  app.get('/items/:id', async (request, reply) => {
    const item = items.get((request.params as { id: string }).id);
    // planted: an unknown id throws; the default handler answers 500 with the message
    if (item === undefined) throw new Error('item lookup failed: connect ECONNREFUSED postgres://app:s3cret-pass@db.internal:5432/items');
    if (item.owner !== userOf(request)) return reply.code(403).type('application/problem+json').send({ title: 'Forbidden', status: 403 });
    return { id: item.id, name: item.name };
  });
  app.delete('/items/:id', async (request, reply) => {
    const item = items.get((request.params as { id: string }).id);
    if (item === undefined) return reply.code(404).type('application/problem+json').send({ title: 'Not Found', status: 404 });
    if (item.owner !== userOf(request)) return reply.code(403).type('application/problem+json').send({ title: 'Forbidden', status: 403 });
    items.delete(item.id);
    return reply.code(204).send();
  });
  return app;
}
