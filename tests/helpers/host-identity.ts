/**
 * The recipes of docs/adapters.md ("The host's identity") for tests: passport's bearer strategy as a
 * middleware that never answers, and the API's `authenticate` that takes passport's user or
 * @fastify/jwt's claims.
 */
import type { NextFunction, Request, Response } from 'express';
import type { FastifyRequest } from 'fastify';
import type passport from 'passport';
import { UnauthorizedError, type ApiRequest } from '../../src/index.js';

/**
 * passport's bearer strategy as a middleware that never answers: a valid token's user on `req.user`,
 * a refused one noted on `res.locals` for the API to answer; without `Authorization`, the user express-session restored from its cookie.
 *
 * @example
 * app.use(passportBearer(auth));
 */
export function passportBearer(auth: InstanceType<typeof passport.Passport>): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    if (req.headers.authorization === undefined) return next();
    auth.authenticate('bearer', { session: false }, (error: unknown, user: Express.User | false) => {
      if (error) return next(error);
      if (user) req.user = user;
      else res.locals.tokenRefused = true;
      next();
    })(req, res, next);
  };
}

/**
 * The API's `authenticate`: passport's user is the principal, a token passport refused the API's 401.
 *
 * @example
 * createApi({ authenticate: passportPrincipal, endpoints });
 */
export function passportPrincipal<User>(request: ApiRequest): User | undefined {
  const { req, res } = request.host as { req: Request; res: Response };
  if (res.locals.tokenRefused === true) throw new UnauthorizedError('The token is not valid');
  return req.user as User | undefined;
}

/**
 * The API's `authenticate` on Fastify with @fastify/jwt, through the host's request: no token is
 * anonymous (restcanon's 401 where one is needed), a bad one a 401 of its own.
 *
 * @example
 * createApi({ authenticate: jwtPrincipal<Claims>, endpoints });
 */
export async function jwtPrincipal<Claims extends object>(request: ApiRequest): Promise<Claims | undefined> {
  const { request: fastifyRequest } = request.host as { request: FastifyRequest };
  try {
    return await fastifyRequest.jwtVerify<Claims>();
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_JWT_NO_AUTHORIZATION_IN_HEADER') return undefined;
    throw new UnauthorizedError('The token is not valid');
  }
}
