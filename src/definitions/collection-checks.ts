import type { BodyOption } from '../core/endpoint.js';
import { checkBodyOption } from './endpoint-checks.js';
import { checkValidators } from '../conventions/conditional/declare.js';
import { checkFunction, checkOptions } from '../core/options.js';
import { checkSchema, isStandardSchema, type StandardSchema } from '../core/standard-schema.js';
import { COLLECTION_OPERATIONS, type CollectionOperation, type OperationDefinition, type OwnBody, type OwnedOperation, type UpdateOptions } from './collection-definition.js';
import type { Level } from './ancestors.js';

const DEFINITION_OPTIONS = [
  'id', 'body', 'patch', 'query', 'item', 'param', 'public', 'authorize', 'owner', 'idOf', 'page', 'sort', 'filter', 'etag', 'lastModified', 'requireIfMatch', 'load', ...COLLECTION_OPERATIONS,
];
const OPERATION_OPTIONS = ['public', 'authorize', 'summary', 'outcomes', 'errors', 'handle', 'response', 'conventions'];
/** Create, replace and update receive a body, and may each have a schema of their own for it. */
const BODY_OPERATION_OPTIONS = [...OPERATION_OPTIONS, 'body', 'bodyLimit'];
const UPDATE_OPTIONS = [...BODY_OPERATION_OPTIONS, 'merge'];
const OWNER_OPTIONS = ['rule', 'on', 'scope'];
/** The operations whose owner check loads the item through read before the handler runs. */
const LOADING_OPERATIONS: readonly OwnedOperation[] = ['replace', 'update', 'remove'];

/**
 * Throws at definition time, with a sentence naming the mistake and the fix, unless a collection's
 * name and definition are complete and consistent.
 *
 * @example
 * checkDefinition('users', { list: () => [] });
 */
export function checkDefinition(name: string, definition: Level['definition']): void {
  if (typeof name !== 'string' || !/^[A-Za-z0-9][\w.~-]*$/.test(name)) {
    throw new TypeError(`collection(${JSON.stringify(name)}): a collection name is one path segment of letters, digits, "-", "_", "." or "~"`);
  }
  const where = `collection("${name}")`;
  if (typeof definition !== 'object' || definition === null) throw new TypeError(`${where}: the definition must be an object`);
  checkOptions(where, definition, DEFINITION_OPTIONS);
  for (const operation of COLLECTION_OPERATIONS) {
    const declared = definition[operation];
    if (declared !== undefined && typeof declared !== 'function' && typeof (declared as { handle?: unknown }).handle !== 'function') {
      throw new TypeError(`${where}: "${operation}" must be a function or an object with a "handle" function`);
    }
    if (typeof declared === 'object') {
      checkOptions(`the "${operation}" of ${where}`, declared, operation === 'update' ? UPDATE_OPTIONS : takesBody(operation) ? BODY_OPERATION_OPTIONS : OPERATION_OPTIONS);
      checkBodyOption(ownBodyOf(declared), `${where}: the "body" of "${operation}"`);
      checkFunction(declared.authorize, `${where}: the "authorize" of "${operation}"`, '(ctx) => true to let the caller go on');
    }
    checkSchema(typeof declared === 'object' ? declared.response : undefined, `${where}: the "response" of "${operation}"`);
  }
  checkFunction(definition.authorize, `${where}: "authorize"`, '(ctx) => true to let the caller go on');
  checkFunction(definition.load, `${where}: "load"`, '(ctx) => the item the URL names');
  if (definition.load !== undefined && definition.read !== undefined) {
    throw new TypeError(`${where}: "load" loads an item for a collection without "read", and "read" is declared; drop "load" (read loads the item) or "read" (to publish no GET of an item)`);
  }
  checkSchema(definition.item, `${where}: "item"`);
  checkSchema(definition.id, `${where}: "id"`);
  checkSchema(definition.query, `${where}: "query"`);
  checkBodyOption(definition.body, `${where}: "body"`);
  checkBodyOption(definition.patch, `${where}: "patch"`);
  // A handler that receives a body must have a schema for it, or say it takes any body.
  for (const operation of ['create', 'replace'] as const) {
    if (definition[operation] !== undefined && bodyOf(definition, operation) === undefined) {
      throw new TypeError(
        `${where}: "${operation}" receives a body, so the collection needs "body": a schema of it (such as body: z.object({ ... })), or body: 'unvalidated' to take any JSON unchecked; "${operation}" may also have a "body" of its own ({ body, handle })`,
      );
    }
  }
  const merge = typeof definition.update === 'object' ? (definition.update as UpdateOptions<unknown>).merge : undefined;
  if (merge !== undefined && typeof merge !== 'boolean') throw new TypeError(`${where}: the "merge" of "update" must be true or false`);
  if (mergesOf(definition)) checkMerge(where, definition);
  else if (definition.update !== undefined && bodyOf(definition, 'update') === undefined) {
    const fix = definition.body !== undefined && definition.body !== 'unvalidated' ? 'patch: body.partial() with zod, or another schema' : 'patch: a schema of the changes';
    throw new TypeError(`${where}: "update" receives a body, so the collection needs "patch" (${fix}), or patch: 'unvalidated' to take any JSON unchecked`);
  }
  checkOwner(where, definition);
  checkValidators(definition, where);
  if ((definition.etag !== undefined || definition.lastModified !== undefined) && loaderOf(definition) === undefined) {
    throw new TypeError(`${where}: "etag" and "lastModified" need "read", or "load" to publish no GET of an item: it loads the item whose validators the request's preconditions are compared with`);
  }
  if ((definition.page !== undefined || definition.sort !== undefined || definition.filter !== undefined) && definition.list === undefined) {
    throw new TypeError(`${where}: "page", "sort" and "filter" shape the list, which the collection does not declare`);
  }
  if (definition.page !== undefined && typeof definition.list === 'object' && definition.list.response !== undefined) {
    throw new TypeError(`${where}: a paged list answers a page of the collection's "item"s; drop the "response" of "list"`);
  }
  if (definition.idOf !== undefined && typeof definition.idOf !== 'function') {
    throw new TypeError(`${where}: "idOf" must be a function that gives a created item's id, such as (created) => created.article.slug`);
  }
}

/**
 * An owner is a rule, or `{ rule, on }` with the operations it guards, each one the collection
 * declares. Guarding an item before a change loads it through read, so read must exist then.
 */
function checkOwner(where: string, definition: Level['definition']): void {
  const owner = definition.owner;
  if (owner === undefined) return;
  if (typeof owner !== 'function') {
    if (typeof owner !== 'object' || owner === null) throw new TypeError(`${where}: "owner" must be a function (item, principal) => boolean, or { rule, on }`);
    checkOptions(`the "owner" of ${where}`, owner, OWNER_OPTIONS);
    if (typeof owner.rule !== 'function') throw new TypeError(`${where}: the "rule" of "owner" must be a function (item, principal) => boolean`);
    if (owner.scope !== undefined && typeof owner.scope !== 'function') throw new TypeError(`${where}: the "scope" of "owner" must be a function (principal) => the filter values of the caller's items`);
    if (owner.on === undefined && owner.scope === undefined) {
      throw new TypeError(`${where}: "owner" as an object needs "on", the operations it guards (such as on: ['replace', 'update', 'remove']), or "scope"; a rule for every operation is owner: (item, principal) => ...`);
    }
    if (owner.on !== undefined && (!Array.isArray(owner.on) || owner.on.length === 0)) {
      throw new TypeError(`${where}: the "on" of "owner" must list the operations it guards, such as on: ['replace', 'update', 'remove']; a rule for every operation is owner: (item, principal) => ...`);
    }
    if (owner.scope !== undefined && (definition.list === undefined || (owner.on !== undefined && !owner.on.includes('list')))) {
      throw new TypeError(`${where}: the "scope" of "owner" keeps a list to the caller's items, so the owner must guard a "list" the collection declares`);
    }
    for (const operation of (owner.on ?? []) as unknown[]) {
      if (operation === 'create') throw new TypeError(`${where}: "owner" cannot guard "create": it makes an item, so there is none to own yet (check the caller with "authorize")`);
      if (!(COLLECTION_OPERATIONS as readonly unknown[]).includes(operation)) {
        throw new TypeError(`${where}: the "on" of "owner" lists ${JSON.stringify(operation)}, which is not an operation; use list, read, replace, update or remove`);
      }
      if (definition[operation as OwnedOperation] === undefined) throw new TypeError(`${where}: the "on" of "owner" lists "${operation as string}", which the collection does not declare`);
    }
  }
  const on = typeof owner === 'function' || owner.on === undefined ? COLLECTION_OPERATIONS : owner.on;
  if (loaderOf(definition) === undefined && (typeof owner === 'function' || on.some((operation) => LOADING_OPERATIONS.includes(operation as OwnedOperation)))) {
    throw new TypeError(`${where}: "owner" needs "read", or "load" to publish no GET of an item: it loads an item so its owner can be checked before any change`);
  }
}

/** What loads an item before a change: read, or `load` where no read is published. */
function loaderOf(definition: Level['definition']): unknown {
  return definition.read ?? definition.load;
}

/**
 * Whether update takes a merge patch.
 *
 * @example
 * mergesOf({ update: { merge: true, handle } }); // true
 */
export function mergesOf(definition: Level['definition']): boolean {
  return typeof definition.update === 'object' && (definition.update as UpdateOptions<unknown>).merge === true;
}

/** A merge patch needs the item (read) and a schema the merged item must pass; `patch` would go unused. */
function checkMerge(where: string, definition: Level['definition']): void {
  if (loaderOf(definition) === undefined) throw new TypeError(`${where}: "update" with "merge" applies the patch to the item, which "read" loads; declare read, or "load" to publish no GET of an item`);
  if (definition.patch !== undefined) throw new TypeError(`${where}: "update" with "merge" takes a merge patch and checks the merged item against "body"; "patch" would go unused, so drop it`);
  if (mergedSchemaOf(definition) === undefined) {
    throw new TypeError(
      `${where}: "update" with "merge" checks the merged item against what a client may write: give update a "body", or the collection a "body" schema ('unvalidated' is not one; "item" holds what the server owns, such as "id", which a patch must not set)`,
    );
  }
}

/**
 * The schema a merged item must pass: update's own body, else the collection's; never `item`, whose server-owned fields a patch would then set.
 *
 * @example
 * mergedSchemaOf({ body: NewArticle, update: { merge: true, handle } }); // NewArticle
 */
export function mergedSchemaOf(definition: Level['definition']): StandardSchema | undefined {
  const own = ownBodyOf(definition.update);
  for (const schema of [own, definition.body]) if (isStandardSchema(schema)) return schema;
  return undefined;
}

function takesBody(operation: CollectionOperation): operation is 'create' | 'replace' | 'update' {
  return operation === 'create' || operation === 'replace' || operation === 'update';
}

function ownBodyOf(declared: OperationDefinition<any, unknown> | undefined): BodyOption | undefined {
  return typeof declared === 'object' ? (declared as OwnBody<BodyOption>).body : undefined;
}

/**
 * The body option of an operation: its own, or the collection's (`patch` for update).
 *
 * @example
 * bodyOf({ patch: ArticlePatch, update: handle }, 'update'); // ArticlePatch
 */
export function bodyOf(definition: Level['definition'], operation: CollectionOperation): BodyOption | undefined {
  if (!takesBody(operation)) return undefined;
  return ownBodyOf(definition[operation]) ?? (operation === 'update' ? definition.patch : definition.body);
}
