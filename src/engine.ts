/**
 * `restcanon/engine`: the engine and its parts, for an API that bundles only the conventions it
 * uses, for modules of your own on the engine's seam, and for the tables and checks `createApi`
 * is built from.
 */
import { apiWith, handlerWith } from './core/api.js';

/**
 * Builds an API with no convention but those in `use`: what it does not use, it does not bundle. An
 * endpoint that asks for a convention the API does not have (a collection's `page`, `etag` or
 * `owner`, any `response` schema, `text/event-stream` in `produces`, a urlencoded form in `consumes`
 * by name or within `*\/*` or `application/*`) is refused when the API is built, with the convention
 * to add. Without `ranges`, a GET of bytes is answered whole, whatever its `Range`.
 *
 * @example
 * import { createApi, lists, projection } from 'restcanon/engine';
 * const api = createApi({ resources: [users], use: [lists, projection] });
 */
export const createApi = /* @__PURE__ */ apiWith([], { cors: 'cors' });

/**
 * `createEndpointHandler` with no convention but those in `use`.
 *
 * @example
 * const handler = createEndpointHandler(readDocument, { use: [conditional] });
 */
export const createEndpointHandler = /* @__PURE__ */ handlerWith([]);

export { CONVENTIONS, conditional, cors, events, forms, lists, mergePatchConvention as mergePatch, ownership, projection, ranges } from './conventions/index.js';
export type { ApiBuild, Convention, EndpointBuild, EndpointParts, Phase, PhaseStep, Responder } from './core/seam.js';
export type { AnswerHook, BodyWriter, ByteHook, Compiled, Exchange, SettleHook, Step } from './core/exchange.js';
export type { ByteBody } from './core/byte-results.js';
export { PHASES } from './core/seam.js';
export type { CreateApi, CreateEndpointHandler } from './core/api.js';
export { defineEndpoint } from './definitions/endpoint-checks.js';
export { createRouter, type Router, type Route, type RouteMatch } from './core/router.js';
export { METHODS, STATUS_TEXT, statusText, isEmptyBodyStatus } from './core/http.js';
export { MEANINGS, DEFAULT_STATUSES, SUCCESS_OUTCOMES, ERROR_OUTCOMES } from './core/outcomes.js';
export { lintPath, lintPaths } from './naming/naming.js';
