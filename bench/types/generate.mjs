/**
 * Writes the TypeScript projects of the types benchmark: one generated API of zod-typed CRUD
 * resources, served by each stack, and a client that calls every endpoint once and reads the
 * narrowed body of each answer.
 *
 * The API: `endpoints / 5` resources, each with five endpoints: list (`GET /<name>`), read
 * (`GET /<name>/:id`), create (`POST /<name>`), replace (`PUT /<name>/:id`, even resources) or update
 * (`PATCH /<name>/:id`, odd resources), and remove (`DELETE /<name>/:id`). One resource in three
 * (indexes 2, 5, 8, ...) is nested under the resource before it: `/projects/:projectId/tasks`.
 * Every resource has its own zod schemas (a body with a field named after the resource, `patch` as
 * `body.partial()`, the item as the body plus `id`, `createdAt` and, nested, the parent's id), so the
 * checker cannot reuse one resource's types for the next.
 *
 * Every project holds the same `schemas.ts` (the zod schemas) and `db.ts` (an in-memory table per
 * resource); `server.ts` and `client.ts` are the stack's own:
 *
 * - `restcanon`: `collection()` per resource (`parent.collection()` for nested ones, listed in
 *   `createApi({ resources })` too) and `createApi`; with the client, `createClient<typeof api>()`
 *   from `restcanon/client` and calls in path form, narrowed by `status`
 *   (`client.get('/projects/:id', { params: { id: 1 } })`, `client.get('/projects')` for a path
 *   without params): restcanonClient() and the restcanon form of gateFile() write them;
 * - `hono`: a `new Hono()` chain per resource with `zValidator` from @hono/zod-validator, mounted with
 *   `.route('/', resource)` (Hono's advice for larger RPC apps); `hc<typeof app>`, narrowed by `status`;
 * - `ts-rest`: a contract (`initContract`, `c.router`, one sub-router per resource), its handlers
 *   (`initServer().router` and `createExpressEndpoints` of @ts-rest/express), and `initClient`,
 *   narrowed by `status`;
 * - `elysia`: a `new Elysia()` chain per resource with the same zod schemas (Standard Schema),
 *   mounted with `.use(resource)`; Eden's `treaty<typeof app>`, narrowed by `error === null`
 *   (Eden's `status` is a plain number);
 * - `schemas`: `schemas.ts` and `db.ts` alone: what the shared part costs in every project.
 *
 *   node bench/types/generate.mjs <stack> <endpoints> <folder> [--no-client] [--gate]
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STACKS = ['schemas', 'restcanon', 'hono', 'ts-rest', 'elysia'];

const NOUNS = [
  'projects', 'tasks', 'users', 'orders', 'invoices', 'customers', 'products', 'reviews', 'comments', 'tags',
  'teams', 'members', 'boards', 'cards', 'labels', 'files', 'folders', 'events', 'tickets', 'articles',
  'authors', 'books', 'carts', 'payments', 'refunds', 'shipments', 'places', 'devices', 'visits', 'notes',
  'messages', 'channels', 'groups', 'roles', 'permissions', 'reports', 'alerts', 'metrics', 'plans', 'subscriptions',
];

/**
 * @typedef {object} Resource
 * @property {number} index
 * @property {string} name the path segment, such as `projects` or `projects2`
 * @property {string} type the item's type name, such as `Project` or `Project2`
 * @property {string} field the body field named after the resource, such as `projectRank`
 * @property {string} param the name of this resource's id in its children's paths (restcanon's rule: `projects` → `projectId`)
 * @property {Resource | undefined} parent
 * @property {'replace' | 'update'} change which of PUT and PATCH the resource declares
 * @property {string} path `/projects/:projectId/tasks`
 * @property {string} itemPath `/projects/:projectId/tasks/:id`
 * @property {boolean} hasChildren whether a resource is nested under this one
 */

/** @param {string} name @returns {string} restcanon's ChildParam: `users` → `userId`, `categories` → `categoryId` */
const childParam = (name) => (name.endsWith('ies') ? `${name.slice(0, -3)}yId` : name.endsWith('s') ? `${name.slice(0, -1)}Id` : `${name}Id`);
const capitalize = (word) => word[0].toUpperCase() + word.slice(1);

/** @param {number} endpoints a multiple of 5 @returns {Resource[]} */
export function resourcesOf(endpoints) {
  if (!Number.isInteger(endpoints / 5) || endpoints <= 0) throw new Error(`endpoints must be a positive multiple of 5, not ${endpoints}`);
  /** @type {Resource[]} */
  const resources = [];
  for (let index = 0; index < endpoints / 5; index++) {
    const noun = NOUNS[index % NOUNS.length];
    const cycle = Math.floor(index / NOUNS.length);
    const name = cycle === 0 ? noun : `${noun}${cycle + 1}`;
    const singular = noun.slice(0, -1);
    const type = `${capitalize(singular)}${cycle === 0 ? '' : cycle + 1}`;
    const parent = index % 3 === 2 ? resources[index - 1] : undefined;
    if (parent !== undefined) parent.hasChildren = true;
    const path = `${parent === undefined ? '' : `${parent.path}/:${parent.param}`}/${name}`;
    resources.push({
      index,
      name,
      type,
      field: `${singular}${cycle === 0 ? '' : cycle + 1}Rank`,
      param: childParam(name),
      parent,
      change: index % 2 === 0 ? 'replace' : 'update',
      path,
      itemPath: `${path}/:id`,
      hasChildren: false,
    });
  }
  return resources;
}

const HEADER = '// Generated by bench/types/generate.mjs: the input of the types benchmark, not code to edit.\n';

/** @param {Resource} r @returns {string} */
function schemasOf(r) {
  const parentField = r.parent === undefined ? '' : `, ${r.parent.param}: z.number().int()`;
  return [
    `export const ${r.type}Body = z.object({ name: z.string().min(1).max(100), note: z.string().max(500).optional(), ${r.field}: z.number().int().nonnegative(), state: z.enum(['draft', 'active', 'archived']) });`,
    ...(r.change === 'update' ? [`export const ${r.type}Patch = ${r.type}Body.partial();`] : []),
    `export const ${r.type}Item = ${r.type}Body.extend({ id: z.number().int(), createdAt: z.string()${parentField} });`,
    `export type ${r.type} = z.output<typeof ${r.type}Item>;`,
  ].join('\n');
}

/** @param {Resource[]} resources */
function schemasFile(resources) {
  return `${HEADER}import { z } from 'zod';

/** An id in a path: \`'1'\` becomes 1. */
export const Id = z.coerce.number().int().positive();
/** The body of a 404, for the stacks that declare it. */
export const NotFound = z.object({ type: z.string(), title: z.string(), status: z.number().int() });
export const notFound = { type: 'about:blank', title: 'Not Found', status: 404 };

${resources.map(schemasOf).join('\n\n')}
`;
}

/** @param {Resource[]} resources */
function dbFile(resources) {
  return `${HEADER}import type { ${resources.map((r) => r.type).join(', ')} } from './schemas.js';

type Data<T> = Omit<T, 'id' | 'createdAt'>;

/** The rows of one resource, in memory. */
export class Table<T extends { id: number; createdAt: string }> {
  readonly #rows = new Map<number, T>();
  all(): T[] {
    return [...this.#rows.values()];
  }
  get(id: number): T | undefined {
    return this.#rows.get(id);
  }
  insert(data: Data<T>): T {
    const row = { ...data, id: this.#rows.size + 1, createdAt: new Date().toISOString() } as T;
    this.#rows.set(row.id, row);
    return row;
  }
  replace(id: number, data: Data<T>): T | undefined {
    const row = this.#rows.get(id);
    return row === undefined ? undefined : this.#set({ ...data, id, createdAt: row.createdAt } as T);
  }
  update(id: number, data: Partial<Data<T>>): T | undefined {
    const row = this.#rows.get(id);
    return row === undefined ? undefined : this.#set({ ...row, ...data });
  }
  remove(id: number): T | undefined {
    const row = this.#rows.get(id);
    this.#rows.delete(id);
    return row;
  }
  #set(row: T): T {
    this.#rows.set(row.id, row);
    return row;
  }
}

${resources.map((r) => `export const ${r.name}Table = new Table<${r.type}>();`).join('\n')}
`;
}

/** What each body-taking call sends. */
const bodyValue = (r) => `{ name: 'x', ${r.field}: 1, state: 'active' }`;
const patchValue = () => `{ name: 'y' }`;
/** The data a handler stores: the body, and for a nested resource the parent's id from the path. */
const dataOf = (r, body, params) => (r.parent === undefined ? body : `{ ...${body}, ${r.parent.param}: ${params}.${r.parent.param} }`);
/** The method name of the change endpoint, lower case. */
const changeMethod = (r) => (r.change === 'replace' ? 'put' : 'patch');
const changeSchema = (r) => (r.change === 'replace' ? `${r.type}Body` : `${r.type}Patch`);
/** The calls of `r` in the client: one function per resource. */
const clientFunction = (r, calls) => `export async function call${capitalize(r.name)}(): Promise<void> {\n${calls.map((call) => `  {\n${call}\n  }`).join('\n')}\n}`;
const USE = 'const use = (value: string): void => {\n  void value;\n};';

// restcanon -----------------------------------------------------------------------------------

/** @param {Resource} r */
function restcanonResource(r) {
  const owner = r.parent === undefined ? `collection('${r.name}', ` : `${r.parent.name}.collection('${r.name}', `;
  const table = `${r.name}Table`;
  const change =
    r.change === 'replace'
      ? `  replace: (ctx) => ${table}.replace(ctx.params.id, ${dataOf(r, 'ctx.body', 'ctx.params')}),`
      : `  update: (ctx) => ${table}.update(ctx.params.id, ctx.body),`;
  return `export const ${r.name} = ${owner}{
  id: Id,
  body: ${r.type}Body,${r.change === 'update' ? `\n  patch: ${r.type}Patch,` : ''}
  item: ${r.type}Item,
  list: () => ${table}.all(),
  read: (ctx) => ${table}.get(ctx.params.id),
  create: (ctx) => ${table}.insert(${dataOf(r, 'ctx.body', 'ctx.params')}),
${change}
  remove: (ctx) => ${table}.remove(ctx.params.id),
});`;
}

/** @param {Resource[]} resources */
function restcanonServer(resources) {
  return `${HEADER}import { collection, createApi } from 'restcanon';
import { Id, ${resources.flatMap((r) => [`${r.type}Body`, `${r.type}Item`, ...(r.change === 'update' ? [`${r.type}Patch`] : [])]).join(', ')} } from './schemas.js';
import { ${resources.map((r) => `${r.name}Table`).join(', ')} } from './db.js';

${resources.map(restcanonResource).join('\n\n')}

export const api = createApi({ resources: [${resources.map((r) => r.name).join(', ')}] });
`;
}

/** The path params of `r`'s item, as a literal: `{ projectId: 1, id: 1 }`. */
const itemParams = (r) => `{ ${r.parent === undefined ? '' : `${r.parent.param}: 1, `}id: 1 }`;
const listParams = (r) => (r.parent === undefined ? undefined : `{ ${r.parent.param}: 1 }`);

/** @param {Resource[]} resources */
function restcanonClient(resources) {
  const calls = (r) => {
    const list = listParams(r);
    const item = itemParams(r);
    return [
      `    const r = await client.get('${r.path}'${list === undefined ? '' : `, { params: ${list} }`});\n    if (r.status === 200) use(r.body[0]?.name ?? '');`,
      `    const r = await client.get('${r.itemPath}', { params: ${item} });\n    if (r.status === 200) use(r.body.name);`,
      `    const r = await client.post('${r.path}', { ${list === undefined ? '' : `params: ${list}, `}body: ${bodyValue(r)} });\n    if (r.status === 201) use(r.body.name);`,
      `    const r = await client.${changeMethod(r)}('${r.itemPath}', { params: ${item}, body: ${r.change === 'replace' ? bodyValue(r) : patchValue()} });\n    if (r.status === 200) use(r.body.name);`,
      `    const r = await client.delete('${r.itemPath}', { params: ${item} });\n    if (r.status === 200) use(r.body.name);`,
    ];
  };
  return `${HEADER}import { createClient } from 'restcanon/client';
import type { api } from './server.js';

const client = createClient<typeof api>({ baseUrl: 'http://localhost:3000' });
${USE}

${resources.map((r) => clientFunction(r, calls(r))).join('\n\n')}
`;
}

// Hono ----------------------------------------------------------------------------------------

/** The zod object of `r`'s path params, by name. */
const paramSchemas = (r, own = 'id') => [
  ...(r.parent === undefined ? [] : [`const ${r.name}ListParams = z.object({ ${r.parent.param}: Id });`]),
  `const ${r.name}ItemParams = z.object({ ${r.parent === undefined ? '' : `${r.parent.param}: Id, `}${own}: Id });`,
];

/** @param {Resource} r */
function honoResource(r) {
  const table = `${r.name}Table`;
  const list = r.parent === undefined ? undefined : `${r.name}ListParams`;
  const item = `${r.name}ItemParams`;
  const found = (expression) => `{\n    const row = ${expression};\n    return row === undefined ? c.json(notFound, 404) : c.json(row, 200);\n  }`;
  return `${paramSchemas(r).join('\n')}
const ${r.name} = new Hono()
  .get('${r.path}', ${list === undefined ? '' : `zValidator('param', ${list}), `}(c) => c.json(${table}.all(), 200))
  .get('${r.itemPath}', zValidator('param', ${item}), (c) => ${found(`${table}.get(c.req.valid('param').id)`)})
  .post('${r.path}', ${list === undefined ? '' : `zValidator('param', ${list}), `}zValidator('json', ${r.type}Body), (c) => c.json(${table}.insert(${dataOf(r, "c.req.valid('json')", "c.req.valid('param')")}), 201))
  .${changeMethod(r)}('${r.itemPath}', zValidator('param', ${item}), zValidator('json', ${changeSchema(r)}), (c) => ${found(
    r.change === 'replace'
      ? `${table}.replace(c.req.valid('param').id, ${dataOf(r, "c.req.valid('json')", "c.req.valid('param')")})`
      : `${table}.update(c.req.valid('param').id, c.req.valid('json'))`,
  )})
  .delete('${r.itemPath}', zValidator('param', ${item}), (c) => ${found(`${table}.remove(c.req.valid('param').id)`)});`;
}

/** @param {Resource[]} resources */
function honoServer(resources) {
  return `${HEADER}import { Hono } from 'hono';
import { zValidator } from '@hono/zod-validator';
import { z } from 'zod';
import { Id, notFound, ${resources.flatMap((r) => [`${r.type}Body`, ...(r.change === 'update' ? [`${r.type}Patch`] : [])]).join(', ')} } from './schemas.js';
import { ${resources.map((r) => `${r.name}Table`).join(', ')} } from './db.js';

${resources.map(honoResource).join('\n\n')}

export const app = new Hono()${resources.map((r) => `\n  .route('/', ${r.name})`).join('')};
`;
}

/** `client.projects[':projectId'].tasks[':id']` for a path template. */
const honoAccess = (template) =>
  `client${template
    .split('/')
    .slice(1)
    .map((segment) => (/^[A-Za-z_$][\w$]*$/.test(segment) ? `.${segment}` : `['${segment}']`))
    .join('')}`;
/** Hono's `param` input: strings. */
const stringParams = (r, withId) => `{ ${[...(r.parent === undefined ? [] : [`${r.parent.param}: '1'`]), ...(withId ? [`id: '1'`] : [])].join(', ')} }`;

/** @param {Resource[]} resources */
function honoClient(resources) {
  const calls = (r) => {
    const listArgs = r.parent === undefined ? '' : `param: ${stringParams(r, false)}`;
    const itemArgs = `param: ${stringParams(r, true)}`;
    const read = (status, expression) => `    if (r.status === ${status}) {\n      const body = await r.json();\n      use(${expression});\n    }`;
    return [
      `    const r = await ${honoAccess(r.path)}.$get(${listArgs === '' ? '' : `{ ${listArgs} }`});\n${read(200, "body[0]?.name ?? ''")}`,
      `    const r = await ${honoAccess(r.itemPath)}.$get({ ${itemArgs} });\n${read(200, 'body.name')}`,
      `    const r = await ${honoAccess(r.path)}.$post({ ${listArgs === '' ? '' : `${listArgs}, `}json: ${bodyValue(r)} });\n${read(201, 'body.name')}`,
      `    const r = await ${honoAccess(r.itemPath)}.$${changeMethod(r)}({ ${itemArgs}, json: ${r.change === 'replace' ? bodyValue(r) : patchValue()} });\n${read(200, 'body.name')}`,
      `    const r = await ${honoAccess(r.itemPath)}.$delete({ ${itemArgs} });\n${read(200, 'body.name')}`,
    ];
  };
  return `${HEADER}import { hc } from 'hono/client';
import type { app } from './server.js';

const client = hc<typeof app>('http://localhost:3000');
${USE}

${resources.map((r) => clientFunction(r, calls(r))).join('\n\n')}
`;
}

// ts-rest -------------------------------------------------------------------------------------

/** @param {Resource} r */
function tsRestContract(r) {
  const list = r.parent === undefined ? '' : ` pathParams: ${r.name}ListParams,`;
  const item = ` pathParams: ${r.name}ItemParams,`;
  return `  ${r.name}: c.router({
    list: { method: 'GET', path: '${r.path}',${list} responses: { 200: z.array(${r.type}Item) } },
    read: { method: 'GET', path: '${r.itemPath}',${item} responses: { 200: ${r.type}Item, 404: NotFound } },
    create: { method: 'POST', path: '${r.path}',${list} body: ${r.type}Body, responses: { 201: ${r.type}Item } },
    ${r.change}: { method: '${r.change === 'replace' ? 'PUT' : 'PATCH'}', path: '${r.itemPath}',${item} body: ${changeSchema(r)}, responses: { 200: ${r.type}Item, 404: NotFound } },
    remove: { method: 'DELETE', path: '${r.itemPath}',${item} body: c.noBody(), responses: { 200: ${r.type}Item, 404: NotFound } },
  }),`;
}

/** @param {Resource} r */
function tsRestHandlers(r) {
  const table = `${r.name}Table`;
  const found = (expression) => `{\n      const row = ${expression};\n      return row === undefined ? { status: 404, body: notFound } : { status: 200, body: row };\n    }`;
  return `  ${r.name}: {
    list: async () => ({ status: 200, body: ${table}.all() }),
    read: async ({ params }) => ${found(`${table}.get(params.id)`)},
    create: async ({ ${r.parent === undefined ? '' : 'params, '}body }) => ({ status: 201, body: ${table}.insert(${dataOf(r, 'body', 'params')}) }),
    ${r.change}: async ({ params, body }) => ${found(r.change === 'replace' ? `${table}.replace(params.id, ${dataOf(r, 'body', 'params')})` : `${table}.update(params.id, body)`)},
    remove: async ({ params }) => ${found(`${table}.remove(params.id)`)},
  },`;
}

/** @param {Resource[]} resources */
function tsRestServer(resources) {
  return `${HEADER}import { initContract } from '@ts-rest/core';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express from 'express';
import { z } from 'zod';
import { Id, NotFound, notFound, ${resources.flatMap((r) => [`${r.type}Body`, `${r.type}Item`, ...(r.change === 'update' ? [`${r.type}Patch`] : [])]).join(', ')} } from './schemas.js';
import { ${resources.map((r) => `${r.name}Table`).join(', ')} } from './db.js';

${resources.flatMap((r) => paramSchemas(r)).join('\n')}

const c = initContract();
export const contract = c.router({
${resources.map(tsRestContract).join('\n')}
});

const s = initServer();
export const router = s.router(contract, {
${resources.map(tsRestHandlers).join('\n')}
});

export const app = express();
app.use(express.json());
createExpressEndpoints(contract, router, app);
`;
}

/** @param {Resource[]} resources */
function tsRestClient(resources) {
  const calls = (r) => {
    const list = listParams(r);
    const item = itemParams(r);
    const at = `client.${r.name}`;
    return [
      `    const r = await ${at}.list(${list === undefined ? '' : `{ params: ${list} }`});\n    if (r.status === 200) use(r.body[0]?.name ?? '');`,
      `    const r = await ${at}.read({ params: ${item} });\n    if (r.status === 200) use(r.body.name);`,
      `    const r = await ${at}.create({ ${list === undefined ? '' : `params: ${list}, `}body: ${bodyValue(r)} });\n    if (r.status === 201) use(r.body.name);`,
      `    const r = await ${at}.${r.change}({ params: ${item}, body: ${r.change === 'replace' ? bodyValue(r) : patchValue()} });\n    if (r.status === 200) use(r.body.name);`,
      `    const r = await ${at}.remove({ params: ${item} });\n    if (r.status === 200) use(r.body.name);`,
    ];
  };
  return `${HEADER}import { initClient } from '@ts-rest/core';
import { contract } from './server.js';

const client = initClient(contract, { baseUrl: 'http://localhost:3000', baseHeaders: {} });
${USE}

${resources.map((r) => clientFunction(r, calls(r))).join('\n\n')}
`;
}

// Elysia --------------------------------------------------------------------------------------

/**
 * The name of `r`'s own id in Elysia paths. Eden's treaty merges the params of sibling segments
 * (`/tasks/:id` beside `/tasks/:taskId/users` asks for `{ id, taskId }` on both), so a resource with
 * children names its item's id after itself (`/tasks/:taskId`), as its children do: the same URLs.
 */
const elysiaOwnParam = (r) => (r.hasChildren ? r.param : 'id');

/** @param {Resource} r */
function elysiaResource(r) {
  const table = `${r.name}Table`;
  const own = elysiaOwnParam(r);
  const itemPath = `${r.path}/:${own}`;
  const list = r.parent === undefined ? '' : `params: ${r.name}ListParams, `;
  const item = `params: ${r.name}ItemParams, `;
  const found = `response: { 200: ${r.type}Item, 404: NotFound }`;
  return `${paramSchemas(r, own).join('\n')}
const ${r.name} = new Elysia()
  .get('${r.path}', () => ${table}.all(), { ${list}response: { 200: z.array(${r.type}Item) } })
  .get('${itemPath}', ({ params, status }) => ${table}.get(params.${own}) ?? status(404, notFound), { ${item}${found} })
  .post('${r.path}', ({ ${r.parent === undefined ? '' : 'params, '}body, status }) => status(201, ${table}.insert(${dataOf(r, 'body', 'params')})), { ${list}body: ${r.type}Body, response: { 201: ${r.type}Item } })
  .${changeMethod(r)}('${itemPath}', ({ params, body, status }) => ${
    r.change === 'replace' ? `${table}.replace(params.${own}, ${dataOf(r, 'body', 'params')})` : `${table}.update(params.${own}, body)`
  } ?? status(404, notFound), { ${item}body: ${changeSchema(r)}, ${found} })
  .delete('${itemPath}', ({ params, status }) => ${table}.remove(params.${own}) ?? status(404, notFound), { ${item}${found} });`;
}

/** @param {Resource[]} resources */
function elysiaServer(resources) {
  return `${HEADER}import { Elysia } from 'elysia';
import { z } from 'zod';
import { Id, NotFound, notFound, ${resources.flatMap((r) => [`${r.type}Body`, `${r.type}Item`, ...(r.change === 'update' ? [`${r.type}Patch`] : [])]).join(', ')} } from './schemas.js';
import { ${resources.map((r) => `${r.name}Table`).join(', ')} } from './db.js';

${resources.map(elysiaResource).join('\n\n')}

export const app = new Elysia()${resources.map((r) => `\n  .use(${r.name})`).join('')};
`;
}

/** `client.projects({ projectId: 1 }).tasks` for a resource, `...tasks({ id: 1 })` for its item. */
const edenAccess = (r, item) => {
  const own = item ? `.${r.name}({ ${elysiaOwnParam(r)}: 1 })` : `.${r.name}`;
  return r.parent === undefined ? `client${own}` : `client.${r.parent.name}({ ${r.parent.param}: 1 })${own}`;
};

/** @param {Resource[]} resources */
function elysiaClient(resources) {
  const calls = (r) => [
    `    const r = await ${edenAccess(r, false)}.get();\n    if (r.error === null) use(r.data[0]?.name ?? '');`,
    `    const r = await ${edenAccess(r, true)}.get();\n    if (r.error === null) use(r.data.name);`,
    `    const r = await ${edenAccess(r, false)}.post(${bodyValue(r)});\n    if (r.error === null) use(r.data.name);`,
    `    const r = await ${edenAccess(r, true)}.${changeMethod(r)}(${r.change === 'replace' ? bodyValue(r) : patchValue()});\n    if (r.error === null) use(r.data.name);`,
    `    const r = await ${edenAccess(r, true)}.delete();\n    if (r.error === null) use(r.data.name);`,
  ];
  return `${HEADER}import { treaty } from '@elysiajs/eden';
import type { app } from './server.js';

const client = treaty<typeof app>('http://localhost:3000');
${USE}

${resources.map((r) => clientFunction(r, calls(r))).join('\n\n')}
`;
}

// the gate ------------------------------------------------------------------------------------

/**
 * `gate.ts`: mistakes that the types must catch, each under `// @ts-expect-error`, in the first
 * resource (top-level) and the third (nested): the narrowed success body is the item (its `name` is
 * no number), a 404 has no item, a create body with a wrong field type is refused, and a nested
 * item carries its parent's id as a number. A project whose types were `any` (or that read a build
 * without the right declarations) leaves a directive unused, which is an error (TS2578): so a
 * project that checks with its gate proves its measured calls exercise real types.
 *
 * @param {string} stack @param {Resource[]} resources @param {boolean} withClient
 */
function gateFile(stack, resources, withClient) {
  const [top, , nested] = resources;
  const parent = nested.parent;
  const badBody = `{ name: 1, ${top.field}: 1, state: 'active' }`;
  const expect = (why) => `    // @ts-expect-error ${why}`;
  if (stack === 'restcanon' && !withClient) {
    return `${HEADER}import { collection } from 'restcanon';
import { Id, ${top.type}Body, ${top.type}Item } from './schemas.js';
import { ${top.name}Table } from './db.js';
import { ${parent.name} } from './server.js';

export const gateItems = collection('gate', {
  id: Id,
  body: ${top.type}Body,
  item: ${top.type}Item,
  read: (ctx) => {
${expect('the id is a number')}
    const id: string = ctx.params.id;
    return ${top.name}Table.get(Number(id));
  },
  create: (ctx) => {
${expect("the body's name is a string")}
    const name: number = ctx.body.name;
    return ${top.name}Table.insert({ ...ctx.body, name: String(name) });
  },
});

export const gateChildren = ${parent.name}.collection('gateChildren', {
  list: (ctx) => {
${expect("the parent's id is a number")}
    const id: string = ctx.params.${parent.param};
    return [id];
  },
});
`;
  }
  /** @type {Record<string, { head: string, read: string, readOk: string, readBody: string, notFound: string, notFoundBody: string, create: string, nested: string, nestedOk: string, nestedBody: string }>} */
  const forms = {
    restcanon: {
      head: `import { createClient } from 'restcanon/client';\nimport type { api } from './server.js';\n\nconst client = createClient<typeof api>({ baseUrl: 'http://localhost:3000' });`,
      read: `client.get('${top.itemPath}', { params: { id: 1 } })`,
      readOk: 'read.status === 200',
      readBody: 'read.body',
      notFound: 'read.status === 404',
      notFoundBody: 'read.body',
      create: `client.post('${top.path}', { body: ${badBody} })`,
      nested: `client.get('${nested.itemPath}', { params: { ${parent.param}: 1, id: 1 } })`,
      nestedOk: 'nested.status === 200',
      nestedBody: 'nested.body',
    },
    hono: {
      head: `import { hc } from 'hono/client';\nimport type { app } from './server.js';\n\nconst client = hc<typeof app>('http://localhost:3000');`,
      read: `${honoAccess(top.itemPath)}.$get({ param: { id: '1' } })`,
      readOk: 'read.status === 200',
      readBody: '(await read.json())',
      notFound: 'read.status === 404',
      notFoundBody: '(await read.json())',
      create: `${honoAccess(top.path)}.$post({ json: ${badBody} })`,
      nested: `${honoAccess(nested.itemPath)}.$get({ param: { ${parent.param}: '1', id: '1' } })`,
      nestedOk: 'nested.status === 200',
      nestedBody: '(await nested.json())',
    },
    'ts-rest': {
      head: `import { initClient } from '@ts-rest/core';\nimport { contract } from './server.js';\n\nconst client = initClient(contract, { baseUrl: 'http://localhost:3000', baseHeaders: {} });`,
      read: `client.${top.name}.read({ params: { id: 1 } })`,
      readOk: 'read.status === 200',
      readBody: 'read.body',
      notFound: 'read.status === 404',
      notFoundBody: 'read.body',
      create: `client.${top.name}.create({ body: ${badBody} })`,
      nested: `client.${nested.name}.read({ params: { ${parent.param}: 1, id: 1 } })`,
      nestedOk: 'nested.status === 200',
      nestedBody: 'nested.body',
    },
    elysia: {
      head: `import { treaty } from '@elysiajs/eden';\nimport type { app } from './server.js';\n\nconst client = treaty<typeof app>('http://localhost:3000');`,
      read: `${edenAccess(top, true)}.get()`,
      readOk: 'read.error === null',
      readBody: 'read.data',
      notFound: 'read.error !== null',
      notFoundBody: 'read.error.value',
      create: `${edenAccess(top, false)}.post(${badBody})`,
      nested: `${edenAccess(nested, true)}.get()`,
      nestedOk: 'nested.error === null',
      nestedBody: 'nested.data',
    },
  };
  const form = forms[stack];
  if (form === undefined) return undefined;
  return `${HEADER}${form.head}

export async function gate(): Promise<void> {
  const read = await ${form.read};
  if (${form.readOk}) {
${expect('the name is a string')}
    const name: number = ${form.readBody}.name;
    void name;
  }
  if (${form.notFound}) {
${expect('a 404 has no item')}
    void ${form.notFoundBody}.name;
  }
${expect("the body's name must be a string").replace('    ', '  ')}
  await ${form.create};
  const nested = await ${form.nested};
  if (${form.nestedOk}) {
${expect("the parent's id is a number")}
    const id: string = ${form.nestedBody}.${parent.param};
    void id;
  }
}
`;
}

// projects ------------------------------------------------------------------------------------

/**
 * @param {string[]} files
 * @param {string | undefined} restcanonDist the folder of restcanon's build whose declarations the project reads
 * @param {boolean} withClient
 * @param {boolean} skipLibCheck
 */
function tsconfig(files, restcanonDist, withClient, skipLibCheck) {
  const paths = restcanonDist === undefined ? undefined : { restcanon: [join(restcanonDist, 'index.d.ts')], ...(withClient ? { 'restcanon/client': [join(restcanonDist, 'client.d.ts')] } : {}) };
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        module: 'ESNext',
        moduleResolution: 'Bundler',
        strict: true,
        skipLibCheck,
        noEmit: true,
        types: ['node'],
        ...(paths === undefined ? {} : { paths }),
      },
      files,
    },
    null,
    2,
  )}\n`;
}

/**
 * Writes one project into `folder` (emptied first).
 *
 * @param {string} stack one of STACKS
 * @param {number} endpoints
 * @param {string} folder
 * @param {{ restcanonDist?: string, withClient?: boolean, gate?: boolean, skipLibCheck?: boolean }} [options] `restcanonDist`:
 *   the build (a folder holding `index.d.ts`, and `client.d.ts` with the client) the `restcanon`
 *   stack imports; `gate`: add `gate.ts` (not for the `schemas` stack); `skipLibCheck: false` checks
 *   the packages' declarations too
 * @returns {string[]} the files of the project
 */
export function writeProject(stack, endpoints, folder, { restcanonDist, withClient = true, gate = false, skipLibCheck = true } = {}) {
  const resources = resourcesOf(endpoints);
  /** @type {Record<string, string>} */
  const files = { 'schemas.ts': schemasFile(resources), 'db.ts': dbFile(resources) };
  if (stack === 'restcanon') {
    if (restcanonDist === undefined) throw new Error('the restcanon project needs restcanonDist');
    files['server.ts'] = restcanonServer(resources);
    if (withClient) files['client.ts'] = restcanonClient(resources);
  } else if (stack === 'hono') {
    files['server.ts'] = honoServer(resources);
    files['client.ts'] = honoClient(resources);
  } else if (stack === 'ts-rest') {
    files['server.ts'] = tsRestServer(resources);
    files['client.ts'] = tsRestClient(resources);
  } else if (stack === 'elysia') {
    files['server.ts'] = elysiaServer(resources);
    files['client.ts'] = elysiaClient(resources);
  } else if (stack !== 'schemas') {
    throw new Error(`no stack "${stack}"; the stacks are: ${STACKS.join(', ')}`);
  }
  if (gate) {
    const text = gateFile(stack, resources, withClient);
    if (text === undefined) throw new Error(`the ${stack} project has no gate`);
    files['gate.ts'] = text;
  }
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const names = Object.keys(files);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  writeFileSync(join(folder, 'tsconfig.json'), tsconfig(names, stack === 'restcanon' ? restcanonDist : undefined, withClient, skipLibCheck));
  return names;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [stack, endpoints, folder] = process.argv.slice(2);
  if (stack === undefined || endpoints === undefined || folder === undefined) {
    console.error('usage: node bench/types/generate.mjs <stack> <endpoints> <folder> [--no-client] [--gate]');
    process.exit(2);
  }
  const dist = resolve(fileURLToPath(new URL('../../dist/', import.meta.url)));
  writeProject(stack, Number(endpoints), resolve(folder), { restcanonDist: dist, withClient: !process.argv.includes('--no-client'), gate: process.argv.includes('--gate') });
  console.log(`Wrote ${resolve(folder)}`);
}
