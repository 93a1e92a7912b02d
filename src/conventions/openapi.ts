import type { OpenApiPart } from '../openapi/part.js';
import { conditionalPart } from './conditional/openapi.js';
import { listsPart } from './lists/openapi.js';
import { mergePatchPart } from './merge-patch/openapi.js';

/**
 * The conventions' parts of the OpenAPI document, in the order of `CONVENTIONS`: what
 * `restcanon/openapi` asks about every operation.
 *
 * @example
 * const parameters = OPENAPI_PARTS.flatMap((part) => part.parameters?.(endpoint, book, name) ?? []);
 */
export const OPENAPI_PARTS: readonly OpenApiPart[] = [listsPart, conditionalPart, mergePatchPart];
