import { BadRequestError, withoutStack } from '../../core/errors.js';
import { ERROR_CODES } from '../../core/error-codes.js';
import { settled, type Exchange, type Step } from '../../core/exchange.js';
import type { Convention, EndpointParts } from '../../core/seam.js';
import type { StandardSchema } from '../../core/standard-schema.js';
import { invalidInput, partValidator, type PartResult } from '../../core/validation.js';
import { mergePatch, writableOf } from './merge-patch.js';

/**
 * Merge patches (RFC 7396) as a convention: the body of an update is applied to the item its URL
 * names, once loaded, and the handler receives the merged item once it passes the schema.
 */

/**
 * What an update asks of the `mergePatch` convention: the schema the merged item must pass, which
 * names what a client may write.
 *
 * @example
 * const declared: MergePatchDeclaration = { schema: NewArticle };
 */
export interface MergePatchDeclaration {
  readonly schema: StandardSchema;
}

/**
 * The `mergePatch` convention: what `update: { merge: true }` of a collection asks for.
 *
 * @example
 * const createApi = apiWith([mergePatchConvention]);
 */
export const mergePatchConvention: Convention = {
  name: 'mergePatch',
  rank: 50,
  endpoint(endpoint, declared, { where, settings }): EndpointParts | undefined {
    if (declared === undefined) return undefined;
    if (endpoint.current === undefined) throw new TypeError(`${where}: a merge patch is applied to the item the URL names, which it does not load`);
    return { steps: [{ phase: 'item', run: merging((declared as MergePatchDeclaration).schema, where, settings.maxDepth), outcomes: ['badRequest'] }] };
  },
};

/** A merge patch applied to the loaded item; the handler receives the result, once it passes the schema. */
function merging(schema: StandardSchema, where: string, maxDepth: number): Step {
  const validate = partValidator(schema, 'body');
  // What the schema does not name (an id, an owner) is dropped before validation, even where a loose
  // schema takes other keys: the schema checks only what a client may write, never the item's own fields.
  const writable = writableOf(schema, where, maxDepth);
  return (exchange) => {
    const patch = exchange.ctx.body;
    if (patch === undefined) throw new BadRequestError('The request needs a body: a JSON merge patch of the item', { code: ERROR_CODES.MALFORMED_BODY });
    return settled(validate(writable(mergePatch(exchange.item, patch))), exchange, keepMerged);
  };
}

function keepMerged(exchange: Exchange, result: PartResult): void {
  if (!result.ok) throw withoutStack(() => invalidInput(result.issues, result.omitted));
  exchange.ctx.body = result.value;
}
