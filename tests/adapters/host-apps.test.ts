/**
 * An API served by restcanon inside an application as users build one, over real HTTP: Express 5
 * with passport, express-session and a request logger, and Fastify 5 with @fastify/jwt,
 * @fastify/rate-limit and pino, both with `tracing()` and the OpenTelemetry SDK. In one app at once:
 * the host's identity is the principal, the host's per-route setup applies to the API's templates,
 * the log lines and the problems name the same request id, and the exported server span has the route.
 */
import { exporter, serverSpanFor } from '../conventions/tracing/otel.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express, { type NextFunction, type Request, type Response } from 'express';
import session from 'express-session';
import Fastify from 'fastify';
import fastifyJwt from '@fastify/jwt';
import rateLimit from '@fastify/rate-limit';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { tracing } from '../../src/conventions/tracing/index.js';
import { createApi, endpoint, NotFoundError } from '../../src/index.js';
import { answerOf, expectProblem } from '../helpers/problem.js';
import { jwtPrincipal, passportBearer, passportPrincipal } from '../helpers/host-identity.js';

type Line = Record<string, unknown>;

/** A stream that keeps each JSON line pino writes to it. */
function captured(lines: Line[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line) as Line);
      done();
    },
  });
}

/** The notes every app serves: a note that exists, and the 404 problem of one that does not. */
function noteEndpoints() {
  return [
    endpoint('GET', '/notes', { handle: () => [{ id: '1' }] }),
    endpoint('GET', '/notes/:id', {
      handle: (ctx) => {
        ctx.log.info({ note: ctx.params.id }, 'read a note');
        if (ctx.params.id !== '1') throw new NotFoundError(`No note ${ctx.params.id}`);
        return { id: '1', principal: ctx.principal, requestId: ctx.id };
      },
    }),
  ] as const;
}

/** The lines logged for one request, by the field the host names its id with. */
function linesOf(lines: Line[], field: string, id: string): Line[] {
  return lines.filter((line) => line[field] === id);
}

describe('Express 5 with passport, express-session, a request logger and tracing()', () => {
  interface User {
    id: number;
    name: string;
  }
  const users = new Map<string, User>([['ada-token', { id: 1, name: 'Ada' }]]);
  const auth = new passport.Passport();
  auth.use(new BearerStrategy((token, done) => done(null, users.get(token) ?? false)));
  auth.serializeUser((user, done) => done(null, (user as User).id));
  auth.deserializeUser((id: number, done) => done(null, [...users.values()].find((user) => user.id === id) ?? false));

  const lines: Line[] = [];
  const logger = pino({ level: 'info' }, captured(lines));
  // What pino-http does: an id and a child logger on the request, a line when the answer is out.
  let counter = 0;
  function requestLogger(req: Request, res: Response, next: NextFunction): void {
    const id = `express-${++counter}`;
    Object.assign(req, { id, log: logger.child({ reqId: id }) });
    res.on('finish', () => (req as unknown as { log: pino.Logger }).log.info({ status: res.statusCode, route: req.route?.path ?? null }, 'request completed'));
    next();
  }
  const bearer = passportBearer(auth);


  const api = createApi({
    use: [tracing()],
    authenticate: passportPrincipal<User>,
    endpoints: noteEndpoints(),
  });

  const routes: string[] = [];
  const app = express();
  app.use(requestLogger);
  app.use(session({ secret: 'a test secret', resave: false, saveUninitialized: false }));
  app.use(auth.initialize());
  app.use(auth.session());
  // A host middleware after the router's route ran: it reads the route the request matched.
  app.use('/v1', bearer, (req, res, next) => {
    res.on('finish', () => routes.push(`${req.method} ${req.route?.path ?? '-'}`));
    next();
  });
  app.use('/v1', toExpress(api, { router: express.Router() }));
  const server: Server = createServer(app);
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("passport's user is the principal, and the handler's ctx.id is the logger's request id", async () => {
    const answer = await fetch(`${base}/v1/notes/1`, { headers: { authorization: 'Bearer ada-token' } });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { principal: User; requestId: string };
    expect(body.principal).toEqual({ id: 1, name: 'Ada' });
    expect(body.requestId).toMatch(/^express-\d+$/);
    expect(linesOf(lines, 'reqId', body.requestId).map((line) => line.msg)).toEqual(['read a note', 'request completed']);
  });

  it("a token passport refuses is restcanon's 401 problem, and no handler runs", async () => {
    const before = lines.filter((line) => line.msg === 'read a note').length;
    const problem = expectProblem(await answerOf(await fetch(`${base}/v1/notes/1`, { headers: { authorization: 'Bearer stolen' } })), {
      status: 401,
      code: 'RC_UNAUTHORIZED',
      detail: 'The token is not valid',
      headers: { 'www-authenticate': 'Bearer realm="api"' },
    });
    expect(problem.instance).toMatch(/^express-\d+$/);
    expect(lines.filter((line) => line.msg === 'read a note')).toHaveLength(before);
  });

  it('a host middleware sees req.route.path as the template the API served', async () => {
    routes.length = 0;
    await fetch(`${base}/v1/notes/1`, { headers: { authorization: 'Bearer ada-token' } });
    await fetch(`${base}/v1/notes`, { headers: { authorization: 'Bearer ada-token' } });
    expect(routes).toEqual(['GET /notes/:id', 'GET /notes']);
  });

  it("a 404 problem's instance is the request id of the request's log lines", async () => {
    const problem = expectProblem(await answerOf(await fetch(`${base}/v1/notes/9`, { headers: { authorization: 'Bearer ada-token' } })), { status: 404, code: 'RC_NOT_FOUND' });
    const logged = linesOf(lines, 'reqId', problem.instance as string);
    expect(logged.map((line) => line.msg)).toEqual(['read a note', 'request completed']);
    expect(logged[1]).toMatchObject({ status: 404, route: '/notes/:id' });
  });

  it('the exported server span has the route template as http.route and in its name', async () => {
    exporter.reset();
    expect((await fetch(`${base}/v1/notes/1`, { headers: { authorization: 'Bearer ada-token' } })).status).toBe(200);
    const span = await serverSpanFor('/v1/notes/1');
    expect(span.name).toBe('GET /v1/notes/:id');
    expect(span.attributes).toMatchObject({ 'http.route': '/v1/notes/:id', 'http.response.status_code': 200 });
  });
});

describe('Fastify 5 with @fastify/jwt, @fastify/rate-limit per route, pino and tracing()', () => {
  interface Claims {
    sub: number;
  }
  const lines: Line[] = [];
  let counter = 0;
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, captured(lines)), genReqId: () => `fastify-${++counter}`, forceCloseConnections: true });

  const api = createApi({
    use: [tracing()],
    authenticate: jwtPrincipal<Claims>,
    endpoints: [...noteEndpoints(), endpoint('GET', '/exports/:id', { handle: (ctx) => ({ id: ctx.params.id }) })],
  });

  let base: string;
  let token: string;
  beforeAll(async () => {
    await app.register(fastifyJwt, { secret: 'a test secret of enough length' });
    await app.register(rateLimit, { global: false });
    await app.register(
      toFastify(api, { routeOptions: ({ path, method }) => (path === '/exports/:id' && method === 'GET' ? { config: { rateLimit: { max: 2, timeWindow: 60_000 } } } : undefined) }),
      { prefix: '/v1' },
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    token = app.jwt.sign({ sub: 1 });
  });
  afterAll(() => app.close());

  const signedIn = () => ({ authorization: `Bearer ${token}` });

  it("@fastify/jwt's verified claims are the principal; a forged token is restcanon's 401 problem", async () => {
    const answer = await fetch(`${base}/v1/notes/1`, { headers: signedIn() });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { principal: Claims }).principal).toMatchObject({ sub: 1 });
    const forged = expectProblem(await answerOf(await fetch(`${base}/v1/notes/1`, { headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } })), {
      status: 401,
      code: 'RC_UNAUTHORIZED',
      detail: 'The token is not valid',
    });
    expect(forged.instance).toMatch(/^fastify-\d+$/);
  });

  it('the rate limit routeOptions gives GET /exports/:id applies to that template (any id) and to no other', async () => {
    const statuses = async (path: string) => {
      const answers: number[] = [];
      for (let round = 0; round < 3; round++) answers.push((await fetch(`${base}${path}${round}`, { headers: signedIn() })).status);
      return answers;
    };
    expect(await statuses('/v1/exports/')).toEqual([200, 200, 429]);
    expect(await statuses('/v1/notes/1?round=')).toEqual([200, 200, 200]);
  });

  it("a 404 problem's instance is the reqId of pino's lines for the request, the handler's line among them", async () => {
    const problem = expectProblem(await answerOf(await fetch(`${base}/v1/notes/9`, { headers: signedIn() })), { status: 404, code: 'RC_NOT_FOUND' });
    expect(problem.instance).toMatch(/^fastify-\d+$/);
    const logged = linesOf(lines, 'reqId', problem.instance as string);
    expect(logged.map((line) => line.msg)).toEqual(['incoming request', 'read a note', 'request completed']);
    expect(logged[2]).toMatchObject({ res: { statusCode: 404 } });
  });

  it('the exported server span has the route template as http.route and in its name', async () => {
    exporter.reset();
    expect((await fetch(`${base}/v1/notes/1`, { headers: signedIn() })).status).toBe(200);
    const span = await serverSpanFor('/v1/notes/1');
    expect(span.name).toBe('GET /v1/notes/:id');
    expect(span.attributes).toMatchObject({ 'http.route': '/v1/notes/:id', 'http.response.status_code': 200 });
  });
});
