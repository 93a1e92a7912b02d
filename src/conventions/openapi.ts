import type { OpenApiPart } from '../openapi/part.js';
import { conditionalPart } from './conditional/openapi.js';
import { listsPart } from './lists/openapi.js';
import { mergePatchPart } from './merge-patch/openapi.js';
import { rangesPart } from './ranges/openapi.js';

/**
 * The conventions' parts of the OpenAPI document, in the order of `CONVENTIONS`: what
 * `restcanon/openapi` asks about every operation.
 *
 * @example
 * const parameters = OPENAPI_PARTS.flatMap((part) => part.parameters?.(endpoint, book, name) ?? []);
 */
export const OPENAPI_PARTS: readonly OpenApiPart[] = [listsPart, conditionalPart, mergePatchPart];

/**
 * The parts of restcanon's conventions that no declaration of an endpoint asks for, by their
 * module's name: the document has one only where the API has that module (a GET of bytes answers
 * `Range` only on an API with `ranges`). By name, as an endpoint finds a convention, so that an API
 * built by another copy of restcanon (its CommonJS build, say) is documented alike; kept here rather
 * than as the module's `openapi`, so that an API that serves no document does not load them.
 *
 * @example
 * const part = MODULE_PARTS.get('ranges'); // rangesPart
 */
export const MODULE_PARTS: ReadonlyMap<string, OpenApiPart> = /* @__PURE__ */ new Map([['ranges', rangesPart]]);
