/**
 * The structural types of Express 4 and 5 that restcanon/express reads and gives: a request, `next`,
 * a middleware and an error middleware. Nothing is imported from express.
 */
import type { ServerResponse } from 'node:http';
import type { ParsedRequest } from './host-body.js';
import type { HostSource } from './host-facts.js';

/**
 * The parts of an Express request that restcanon reads, common to Express 4 and 5.
 *
 * @example
 * const isParsed = (req: ExpressRequest) => req._body === true;
 */
export interface ExpressRequest extends ParsedRequest, HostSource {
  /** What a body parser such as `express.json()` made of the body. */
  body?: unknown;
  /** The mount path Express took off `req.url` (`/v1` for `app.use('/v1', ...)`). */
  baseUrl?: string;
  /** The target as it was sent, before any mount path was taken off it. */
  originalUrl?: string;
  /** Path params from the Express route (Express 5 gives a wildcard as an array of segments). */
  params?: Record<string, string | string[] | undefined>;
  /** The route Express matched; taken off again where the core reads the path as another template. */
  route?: unknown;
}

/**
 * Express's `next`: no argument goes on to the next handler, an error goes to the error handlers.
 *
 * @example
 * const next: ExpressNext = (error) => console.error(error);
 */
export type ExpressNext = (error?: unknown) => void;

/**
 * An Express middleware or route handler.
 *
 * @example
 * app.use(middleware satisfies ExpressMiddleware);
 */
export type ExpressMiddleware = (req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;

/**
 * An Express error middleware: Express tells it from other middleware by its four parameters.
 *
 * @example
 * app.use(((error, req, res, next) => next(error)) satisfies ExpressErrorMiddleware);
 */
export type ExpressErrorMiddleware = (error: unknown, req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;
