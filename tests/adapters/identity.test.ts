/**
 * The host's identity as restcanon's principal, over real servers: Express 5 with passport (a bearer
 * token, or the user of an express-session sign-in) and Fastify 5 with @fastify/jwt and pino. The
 * host's authentication never answers: it finds the user, and restcanon answers 401 (with its
 * challenge) and 403 as it answers them on every host.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import session from 'express-session';
import Fastify from 'fastify';
import fastifyJwt from '@fastify/jwt';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { ConflictError, createApi, endpoint } from '../../src/index.js';
import { answerOf, expectProblem } from '../helpers/problem.js';
import { jwtPrincipal, passportBearer, passportPrincipal } from '../helpers/host-identity.js';

interface User {
  id: number;
  name: string;
  role: 'admin' | 'reader';
}

const USERS = new Map<number, User>([
  [1, { id: 1, name: 'Ada', role: 'admin' }],
  [2, { id: 2, name: 'Bob', role: 'reader' }],
]);
const TOKENS = new Map([
  ['ada-token', 1],
  ['bob-token', 2],
]);

const CHALLENGE = 'Bearer realm="api"';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('Express 5, passport and express-session', () => {
  // A Passport of its own rather than the module's singleton.
  const auth = new passport.Passport();
  auth.use(new BearerStrategy((token, done) => done(null, TOKENS.has(token) ? USERS.get(TOKENS.get(token)!) : false)));
  auth.serializeUser((user, done) => done(null, (user as User).id));
  auth.deserializeUser((id: number, done) => done(null, USERS.get(id) ?? false));

  const bearer = passportBearer(auth);


  const api = createApi({
    authenticate: passportPrincipal<User>,
    endpoints: [
      endpoint('GET', '/me', { handle: (ctx) => ctx.principal }),
      endpoint('GET', '/reports', { authorize: (ctx) => (ctx.principal as User).role === 'admin', handle: () => [{ id: 1 }] }),
    ],
  });

  const app = express();
  app.use(session({ secret: 'a test secret', resave: false, saveUninitialized: false }));
  app.use(auth.initialize());
  app.use(auth.session());
  // The sign-in is the host's own route, outside the API: it sets the session cookie.
  app.post('/login', express.json(), (req, res, next) => {
    const user = USERS.get((req.body as { id: number }).id);
    if (user === undefined) return void res.status(401).end();
    req.login(user, (error) => (error ? next(error) : res.status(204).end()));
  });
  app.use('/v1', bearer, toExpress(api));
  const server = createServer(app);
  let base: string;
  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a valid bearer token’s user is the principal', async () => {
    const answer = await fetch(`${base}/v1/me`, { headers: { authorization: 'Bearer ada-token' } });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ id: 1, name: 'Ada', role: 'admin' });
  });

  it('no token and no session: restcanon’s 401 problem with its challenge, not passport’s answer', async () => {
    expectProblem(await answerOf(await fetch(`${base}/v1/me`)), { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': CHALLENGE } });
  });

  it('a token passport refuses: restcanon’s 401 with the detail authenticate gave, the challenge unchanged', async () => {
    const answer = await answerOf(await fetch(`${base}/v1/me`, { headers: { authorization: 'Bearer stolen' } }));
    expectProblem(answer, { status: 401, code: 'RC_UNAUTHORIZED', detail: 'The token is not valid', headers: { 'www-authenticate': CHALLENGE } });
  });

  it('a user the API’s authorize refuses: restcanon’s 403', async () => {
    expectProblem(await answerOf(await fetch(`${base}/v1/reports`, { headers: { authorization: 'Bearer bob-token' } })), { status: 403, code: 'RC_FORBIDDEN' });
    expect((await fetch(`${base}/v1/reports`, { headers: { authorization: 'Bearer ada-token' } })).status).toBe(200);
  });

  it('a sign-in outside the API sets the session cookie, and the API sees its user', async () => {
    const login = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":2}' });
    expect(login.status).toBe(204);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(cookie).toMatch(/^connect\.sid=/);
    const me = await fetch(`${base}/v1/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ id: 2, name: 'Bob', role: 'reader' });
    expectProblem(await answerOf(await fetch(`${base}/v1/reports`, { headers: { cookie } })), { status: 403 });
  });
});

describe('Fastify 5, @fastify/jwt and pino', () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, destination) });

  interface Claims {
    sub: number;
    role: 'admin' | 'reader';
  }

  const api = createApi({
    authenticate: jwtPrincipal<Claims>,
    endpoints: [
      endpoint('GET', '/me', {
        handle: (ctx) => {
          ctx.log.info({ sub: (ctx.principal as Claims).sub }, 'read the caller');
          return { sub: (ctx.principal as Claims).sub, id: ctx.id };
        },
      }),
      endpoint('GET', '/reports', { authorize: (ctx) => (ctx.principal as Claims).role === 'admin', handle: () => [] }),
      endpoint('POST', '/reports', {
        body: 'ignored',
        handle: (ctx) => {
          ctx.log.warn({ sub: (ctx.principal as Claims).sub }, 'a report is already running');
          throw new ConflictError('A report is already running');
        },
      }),
    ],
  });

  let base: string;
  let adaToken: string;
  let bobToken: string;
  beforeAll(async () => {
    await app.register(fastifyJwt, { secret: 'a test secret of enough length' });
    await app.register(toFastify(api), { prefix: '/v1' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    adaToken = app.jwt.sign({ sub: 1, role: 'admin' });
    bobToken = app.jwt.sign({ sub: 2, role: 'reader' });
  });
  afterAll(() => app.close());

  it('a valid token’s claims are the principal', async () => {
    const answer = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${adaToken}` } });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ sub: 1 });
  });

  it('no token: restcanon’s 401 problem with its challenge; a bad or expired one, the 401 authenticate throws', async () => {
    expectProblem(await answerOf(await fetch(`${base}/v1/me`)), { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': CHALLENGE } });
    const forged = `${adaToken.slice(0, -4)}AAAA`;
    expectProblem(await answerOf(await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${forged}` } })), { status: 401, detail: 'The token is not valid', headers: { 'www-authenticate': CHALLENGE } });
    const expired = app.jwt.sign({ sub: 1, role: 'admin', exp: Math.floor(Date.now() / 1000) - 60 });
    expectProblem(await answerOf(await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${expired}` } })), { status: 401, detail: 'The token is not valid' });
  });

  it('claims the API’s authorize refuses: restcanon’s 403', async () => {
    expectProblem(await answerOf(await fetch(`${base}/v1/reports`, { headers: { authorization: `Bearer ${bobToken}` } })), { status: 403, code: 'RC_FORBIDDEN' });
  });

  it('ctx.log writes through pino with Fastify’s reqId, which is the instance of the request’s problem', async () => {
    const read = (await (await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${adaToken}` } })).json()) as { id: string };
    expect(lines.findLast((line) => line.msg === 'read the caller')).toMatchObject({ reqId: read.id, sub: 1, level: 30 });
    const problem = expectProblem(await answerOf(await fetch(`${base}/v1/reports`, { method: 'POST', headers: { authorization: `Bearer ${adaToken}` } })), { status: 409 });
    const line = lines.find((entry) => entry.msg === 'a report is already running');
    expect(line).toMatchObject({ reqId: problem.instance, sub: 1, level: 40 });
    expect(problem.instance).not.toBe(read.id);
  });
});
