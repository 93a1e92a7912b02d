/**
 * The options the adapters pass `api.respond`, each one object kept for every request, so that a
 * request allocates nothing for them.
 */
import type { RespondOptions } from '../core/api.js';

/**
 * For a request whose header names are in lower case already, as `node:http` and a Fetch `Headers`
 * give them: the core does not lower them again. A path the API does not know gets its 404.
 *
 * @example
 * const response = await api.respond(fromNodeRequest(req), LOWER_CASE_HEADERS);
 */
export const LOWER_CASE_HEADERS = { lowerCaseHeaders: true } as const satisfies RespondOptions;

/**
 * As {@link LOWER_CASE_HEADERS}, but a path the API does not know is passed on: the answer is
 * undefined, and the host goes on to its next handler.
 *
 * @example
 * const answer = await api.respond(fromNodeRequest(req), PASS_ON);
 * if (answer === undefined) next();
 */
export const PASS_ON = { unmatched: 'pass', lowerCaseHeaders: true } as const satisfies RespondOptions;

/**
 * For headers that may come in any case (a Fastify hook may set `request.headers` to its own
 * object): the core lowers their names.
 *
 * @example
 * api.respond(request, request.headers === req.headers ? LOWER_CASE_HEADERS : ANY_HEADERS);
 */
export const ANY_HEADERS = {} as const satisfies RespondOptions;
