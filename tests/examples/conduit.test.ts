/**
 * The Conduit example (examples/conduit/) over real HTTP, as a Conduit client sees it: the `Token`
 * scheme, articles by slug with `Location`, authors-only changes, Conduit's 422 error body,
 * favorites, comments, tags, list filters and `articlesCount`. Then its OpenAPI document against
 * what the API answers: every status a request gets is listed for its operation, and every listed
 * status is observed or named below with the reason. All of it on PGlite, and again on a Postgres
 * server where Debian's is installed: one database each, emptied where a part needs it empty. The
 * example imports the built package ('restcanon'): run `npm run build` first.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest, RouteInfo } from 'restcanon';
import { toNodeListener } from '../../src/adapters/node.js';
import type { OpenApiDocument } from '../../src/openapi/index.js';
import { headerText } from '../helpers/headers.js';
import { createConduitApi } from '../../examples/conduit/api.mjs';
import { addUser, emptyConduitDatabase, openConduitDatabase } from '../../examples/conduit/store.mjs';
import { downDatabase, OPEN_TIMEOUT } from '../helpers/demo-database.js';
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.js';

type Database = Awaited<ReturnType<typeof openConduitDatabase>>;

/** Where the example keeps its data: PGlite in the process, and a Postgres server where Debian's is installed. */
const DATABASES = [
  { name: 'PGlite', skip: undefined, start: async () => ({ url: undefined, stop: async () => {} }) },
  { name: 'a Postgres server', skip: POSTGRES_MISSING, start: startPostgres },
] as const;

interface Answer {
  status: number;
  headers: Headers;
  // The tests read the JSON bodies freely.
  body: any;
}

let base: string;

/** One request as a Conduit client sends it: JSON, and `Authorization: Token <token>` when signed in. */
async function send(method: string, path: string, { token, body, authorization }: { token?: string; body?: unknown; authorization?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token !== undefined) headers.authorization = `Token ${token}`;
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

const signUp = (name: string) => send('POST', '/users', { body: { user: { username: name, email: `${name}@example.com`, password: `${name}-password` } } });
const newArticle = (title: string, tagList: string[] = []) => ({ article: { title, description: `About ${title}`, body: `The text of ${title}`, tagList } });

/**
 * The database, with the check for a taken email or username held until `count` requests have made
 * it: they all pass it before any of them writes, as requests that arrive at once on a server may.
 */
function checksAtOnce(db: Database, count: number): Database {
  const waiting: (() => void)[] = [];
  const query = async (text: string, params?: unknown[]) => {
    const rows = await db.query(text, params);
    if (text.includes('bool_or')) {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === count) for (const release of waiting) release();
      });
    }
    return rows;
  };
  return { ...db, query } as Database;
}

// The document against the API: each route gets every probe, each on the same seeded data.

/** The password hashes of Ada and Bob, made once: a scrypt hash takes a while. */
interface Hashes {
  ada: string;
  bob: string;
}

/** Ada wrote the article "hello" and its comment 1; Bob wrote nothing. Each has a fixed token. */
async function seed(db: Database, { ada, bob }: Hashes): Promise<void> {
  await db.exec(`begin;
    truncate conduit.users, conduit.tokens, conduit.follows, conduit.articles, conduit.favorites, conduit.comments restart identity cascade;
    insert into conduit.users (email, username, password) values ('ada@example.com', 'ada', '${ada}'), ('bob@example.com', 'bob', '${bob}');
    insert into conduit.tokens (token, user_id) values ('ada-token', 1), ('bob-token', 2);
    insert into conduit.articles (slug, title, description, body, tag_list, author_id) values ('hello', 'Hello', 'A greeting', 'Hello, world', '{greetings}', 1);
    insert into conduit.comments (article_id, author_id, body) values (1, 1, 'First');
    commit;`);
}

/** A valid body for each route that reads one. */
function validBody(method: string, path: string): unknown {
  if (path === '/api/users') return { user: { username: 'cy', email: 'cy@example.com', password: 'cy-password' } };
  if (path === '/api/users/login') return { user: { email: 'ada@example.com', password: 'ada-password' } };
  if (path === '/api/user') return { user: { bio: 'New bio' } };
  if (path === '/api/articles') return newArticle('Probe');
  if (path === '/api/articles/:id') return { article: { body: 'Changed' } };
  if (path.endsWith('/comments')) return { comment: { body: 'A comment' } };
  return method === 'POST' && path.endsWith('/follow') ? {} : undefined;
}

const known = { id: 'hello', slug: 'hello', username: 'bob', comment: '1' };
const unknown = { id: 'nope', slug: 'nope', username: 'nobody', comment: '99' };

/** The URL of a route with its params filled: an article's slug, a comment's id, a username. */
function urlOf(path: string, params: { id: string; slug: string; username: string; comment: string }): string {
  return path
    .replace(':slug', params.slug)
    .replace(':username', params.username)
    .replace(':id', path.startsWith('/api/profiles') ? params.username : path.includes('/comments/') ? params.comment : params.id);
}

interface Probe {
  name: string;
  /** The request meets a database that is down. */
  down?: boolean;
  request: (route: RouteInfo) => ApiRequest;
}

const json = { 'content-type': 'application/json' };
const asAda = { authorization: 'Token ada-token' };

function probe(name: string, options: { headers?: Record<string, string>; params?: typeof known; body?: (route: RouteInfo) => string | undefined; query?: string; down?: boolean }): Probe {
  const { headers = asAda, params = known, query = '', down } = options;
  const body = options.body ?? ((route: RouteInfo) => {
    const value = validBody(route.method, route.path);
    return value === undefined ? undefined : JSON.stringify(value);
  });
  return {
    name,
    ...(down === undefined ? {} : { down }),
    request: (route) => {
      const text = body(route);
      return { method: route.method, url: urlOf(route.path, params) + query, headers: text === undefined ? headers : { ...json, ...headers }, body: text };
    },
  };
}

const PROBES: readonly Probe[] = [
  probe('success as the author', {}),
  probe('as another user', { headers: { authorization: 'Token bob-token' } }),
  probe('anonymous', { headers: {} }),
  probe('a token that is not valid', { headers: { authorization: 'Token forged' } }),
  probe('two credentials', { headers: { authorization: 'Token ada-token, Token bob-token' } }),
  probe('an unknown slug, username or comment', { params: unknown }),
  probe('a comment id that is not a number', { params: { ...known, comment: 'abc' } }),
  probe('an invalid limit', { query: '?limit=0' }),
  probe('invalid fields', { body: () => '{"user":{"email":"x","password":""},"article":{"title":""},"comment":{"body":""}}' }),
  probe('malformed JSON', { body: () => '{"user":' }),
  probe('a taken email, or a wrong password', { body: () => '{"user":{"username":"ada","email":"ada@example.com","password":"not-the-password"}}', headers: { authorization: 'Token bob-token' } }),
  probe('Accept: image/png', { headers: { ...asAda, accept: 'image/png' } }),
  probe('a body over the limit', { body: () => JSON.stringify({ text: 'x'.repeat(1024 * 1024) }) }),
  probe('a body that is not JSON', { body: () => 'hello', headers: { ...asAda, 'content-type': 'text/plain' } }),
  probe('the database is down', { down: true }),
];

/** Statuses the document lists that no request can get, by operation, each for the reason given. */
const UNOBSERVABLE: Readonly<Record<string, readonly number[]>> = {
  // A submit or a remove that returns nothing answers 204; these handlers always return the profile or the article.
  'POST /users/login': [204],
  'POST /profiles/{username}/follow': [204],
  'DELETE /profiles/{username}/follow': [204],
  'POST /articles/{slug}/favorite': [204],
  'DELETE /articles/{slug}/favorite': [204],
  // Deleting an article or a comment returns true, so 204, never a 200 with the removed item.
  'DELETE /articles/{id}': [200],
  'DELETE /articles/{slug}/comments/{id}': [200],
  // A new comment is answered 200 (ctx.outcome('submit')), as the spec says, never the create's 201.
  // The article's owner rule guards only replace and remove, so nothing below an article answers 403 but a comment's removal.
  'POST /articles/{slug}/comments': [201, 403],
  'GET /articles/{slug}/comments': [403],
};

const toOpenApiPath = (template: string) => template.slice('/api'.length).replace(/:(\w+)/g, '{$1}');

for (const { name, skip, start } of DATABASES) describe.skipIf(skip !== undefined)(`the Conduit example on ${name}`, () => {
  let db: Database;
  let postgres: { url: string | undefined; stop(): Promise<void> };
  beforeAll(async () => {
    postgres = await start();
    db = await openConduitDatabase({ url: postgres.url });
  }, OPEN_TIMEOUT);
  afterAll(async () => {
    await db.close();
    await postgres.stop();
  });

  describe('over HTTP', () => {
    let server: Server;
    const reported: unknown[] = [];
    let ada: string;
    let bob: string;

    beforeAll(async () => {
      await emptyConduitDatabase(db);
      server = createServer(toNodeListener(createConduitApi(db, { onError: (error: unknown) => reported.push(error) })));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('registers a user: 201, the user with a token, Location naming the profile', async () => {
      const registered = await signUp('ada');
      expect(registered.status).toBe(201);
      expect(registered.headers.get('location')).toBe('/api/profiles/ada');
      expect(registered.body).toEqual({ user: { email: 'ada@example.com', token: expect.any(String), username: 'ada', bio: '', image: '' } });
      ada = registered.body.user.token;
      bob = (await signUp('bob')).body.user.token;
      expect((await send('GET', '/profiles/ada')).body).toEqual({ profile: { username: 'ada', bio: '', image: '', following: false } });
    });

    it('answers invalid input and a taken email with 422 and Conduit\'s error body', async () => {
      const invalid = await send('POST', '/users', { body: { user: { username: '', email: 'not an email', password: 'short' } } });
      expect(invalid.status).toBe(422);
      expect(invalid.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(invalid.body).toEqual({
        errors: { email: ['must be a valid email address'], password: ['must be at least 8 characters'], username: ['must be at least 1 character'] },
      });
      const taken = await send('POST', '/users', { body: { user: { username: 'ada', email: 'ADA@example.com', password: 'password-2' } } });
      expect(taken.status).toBe(422);
      expect(taken.body).toEqual({ errors: { email: ['has already been taken'], username: ['has already been taken'] } });
      const unwrapped = await send('POST', '/users', { body: { username: 'cy', email: 'cy@example.com', password: 'password-3' } });
      expect(unwrapped.status).toBe(422);
      expect(unwrapped.body).toEqual({ errors: { user: ['is required'] } });
      const malformed = await fetch(`${base}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":' });
      expect(malformed.status).toBe(422);
      expect(await malformed.json()).toEqual({ errors: { body: ['The body is not valid JSON'] } });
    });

    it('two registrations of one email at once, both past the check for a taken email: the unique index makes the second a 422, not a 500', async () => {
      const api = createConduitApi(checksAtOnce(db, 2), { onError: (error: unknown) => reported.push(error) });
      const register = (name: string) =>
        api.handle({ method: 'POST', url: '/api/users', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: name, email: `${name}@example.com`, password: 'password-4' } }) });
      const answers = await Promise.all([register('dee'), register('DEE')]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422]);
      expect(answers.map((answer) => answer.body)).toContainEqual({ errors: { email: ['has already been taken'] } });
    });

    it('signs in with the Token scheme: 401 with WWW-Authenticate: Token without a valid token', async () => {
      const wrong = await send('POST', '/users/login', { body: { user: { email: 'ada@example.com', password: 'not-her-password' } } });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toBe('Token');
      expect(wrong.body).toEqual({ errors: { body: ['The email or the password is wrong'] } });

      const anyCase = await send('POST', '/users/login', { body: { user: { email: 'Ada@Example.COM', password: 'ada-password' } } });
      expect([anyCase.status, anyCase.body.user?.email]).toEqual([200, 'ada@example.com']);
      const signedIn = await send('POST', '/users/login', { body: { user: { email: 'ada@example.com', password: 'ada-password' } } });
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.user).toMatchObject({ email: 'ada@example.com', username: 'ada' });
      const token = signedIn.body.user.token as string;

      const anonymous = await send('GET', '/user');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Token');
      expect(anonymous.body).toEqual({ errors: { body: ['Unauthorized'] } });
      const bearer = await send('GET', '/user', { authorization: `Bearer ${token}` });
      expect(bearer.status).toBe(401);
      expect(bearer.headers.get('www-authenticate')).toBe('Token');
      expect(bearer.body).toEqual({ errors: { body: ['The token is not valid'] } });

      const current = await send('GET', '/user', { token });
      expect(current.status).toBe(200);
      expect(current.body).toEqual({ user: { email: 'ada@example.com', token, username: 'ada', bio: '', image: '' } });
    });

    it('PUT /user changes only the fields it is given, and refuses another user\'s email', async () => {
      const changed = await send('PUT', '/user', { token: ada, body: { user: { bio: 'Writes about dragons' } } });
      expect(changed.status).toBe(200);
      expect(changed.body.user).toEqual({ email: 'ada@example.com', token: ada, username: 'ada', bio: 'Writes about dragons', image: '' });
      const taken = await send('PUT', '/user', { token: bob, body: { user: { email: 'ada@example.com' } } });
      expect(taken.status).toBe(422);
      expect(taken.body).toEqual({ errors: { email: ['has already been taken'] } });
      expect((await send('PUT', '/user', { token: ada, body: { user: { email: 'ada@example.com' } } })).status).toBe(200);
    });

    it('creates, reads, changes and deletes an article by its slug; only the author changes it', async () => {
      const created = await send('POST', '/articles', { token: ada, body: newArticle('How to train your dragon', ['training', 'dragons']) });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe('/api/articles/how-to-train-your-dragon');
      expect(created.body.article).toMatchObject({
        slug: 'how-to-train-your-dragon',
        title: 'How to train your dragon',
        body: 'The text of How to train your dragon',
        tagList: ['dragons', 'training'],
        favorited: false,
        favoritesCount: 0,
        author: { username: 'ada', bio: 'Writes about dragons', image: '', following: false },
      });
      expect(created.body.article.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const read = await send('GET', '/articles/how-to-train-your-dragon');
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);

      const changed = await send('PUT', '/articles/how-to-train-your-dragon', { token: ada, body: { article: { body: 'With two hands' } } });
      expect(changed.status).toBe(200);
      expect(changed.body.article).toMatchObject({ slug: 'how-to-train-your-dragon', title: 'How to train your dragon', body: 'With two hands' });

      const notTheAuthor = await send('PUT', '/articles/how-to-train-your-dragon', { token: bob, body: { article: { body: 'Mine now' } } });
      expect(notTheAuthor.status).toBe(403);
      expect(notTheAuthor.body).toEqual({ errors: { body: ['Forbidden'] } });
      expect((await send('DELETE', '/articles/how-to-train-your-dragon', { token: bob })).status).toBe(403);
      expect((await send('GET', '/articles/how-to-train-your-dragon')).body.article.body).toBe('With two hands');

      const anonymous = await send('DELETE', '/articles/how-to-train-your-dragon');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Token');

      const twice = await send('POST', '/articles', { token: bob, body: newArticle('How to train your dragon') });
      expect(twice.headers.get('location')).toBe('/api/articles/how-to-train-your-dragon-2');
      // Two articles of one title created at once: the unique index on the slug gives each its own.
      const twins = await Promise.all([1, 2].map(() => send('POST', '/articles', { token: bob, body: newArticle('Twins') })));
      expect(twins.map((twin) => twin.headers.get('location')).sort()).toEqual(['/api/articles/twins', '/api/articles/twins-2']);
      for (const slug of ['twins', 'twins-2']) expect((await send('DELETE', `/articles/${slug}`, { token: bob })).status).toBe(204);
      const removed = await send('DELETE', '/articles/how-to-train-your-dragon-2', { token: bob });
      expect(removed.status).toBe(204);
      expect(removed.body).toBeUndefined();
      const gone = await send('GET', '/articles/how-to-train-your-dragon-2');
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ errors: { body: ['Not Found'] } });
      expect((await send('PUT', '/articles/no-such-article', { token: ada, body: { article: { body: 'x' } } })).status).toBe(404);
    });

    it('answers an invalid article with 422 naming each field', async () => {
      const invalid = await send('POST', '/articles', { token: ada, body: { article: { title: '', description: 'd', tagList: 'dragons' } } });
      expect(invalid.status).toBe(422);
      expect(invalid.body).toEqual({ errors: { title: ['must be at least 1 character'], body: ['is required'], tagList: ['must be an array'] } });
      const emptyChange = await send('PUT', '/articles/how-to-train-your-dragon', { token: ada, body: { article: { title: '' } } });
      expect(emptyChange.status).toBe(422);
      expect(emptyChange.body).toEqual({ errors: { title: ['must be at least 1 character'] } });
    });

    it('favorites and unfavorites an article', async () => {
      const favorited = await send('POST', '/articles/how-to-train-your-dragon/favorite', { token: bob });
      expect(favorited.status).toBe(200);
      expect(favorited.body.article).toMatchObject({ slug: 'how-to-train-your-dragon', favorited: true, favoritesCount: 1 });
      const byBob = await send('GET', '/articles?favorited=bob');
      expect(byBob.body.articlesCount).toBe(1);
      expect(byBob.body.articles[0]).toMatchObject({ slug: 'how-to-train-your-dragon', favorited: false, favoritesCount: 1 });
      expect((await send('GET', '/articles?favorited=bob', { token: bob })).body.articles[0].favorited).toBe(true);

      const unfavorited = await send('DELETE', '/articles/how-to-train-your-dragon/favorite', { token: bob });
      expect(unfavorited.status).toBe(200);
      expect(unfavorited.body.article).toMatchObject({ favorited: false, favoritesCount: 0 });
      expect((await send('GET', '/articles?favorited=bob')).body).toEqual({ articles: [], articlesCount: 0 });
      expect((await send('POST', '/articles/no-such-article/favorite', { token: bob })).status).toBe(404);
      expect((await send('POST', '/articles/how-to-train-your-dragon/favorite')).status).toBe(401);
    });

    it('comments on an article: anyone reads them, only their author deletes one', async () => {
      const path = '/articles/how-to-train-your-dragon/comments';
      const posted = await send('POST', path, { token: bob, body: { comment: { body: 'Thank you so much!' } } });
      expect(posted.status).toBe(200);
      // The spec answers 200 (the handler chooses `submit`): no Location, which names a 201's new item.
      expect(posted.headers.get('location')).toBeNull();
      expect(posted.body).toEqual({
        comment: { id: 1, createdAt: expect.any(String), updatedAt: expect.any(String), body: 'Thank you so much!', author: { username: 'bob', bio: '', image: '', following: false } },
      });
      const listed = await send('GET', path);
      expect(listed.status).toBe(200);
      expect(listed.body.comments.map((comment: { id: number }) => comment.id)).toEqual([1]);
      // The spec has no GET of one comment: none is published, though the owner rule loads it.
      const one = await send('GET', `${path}/1`);
      expect([one.status, one.headers.get('allow')]).toEqual([405, 'DELETE, OPTIONS']);

      expect((await send('DELETE', `${path}/1`, { token: ada })).status).toBe(403);
      expect((await send('POST', path, { token: bob, body: { comment: { body: '' } } })).body).toEqual({ errors: { body: ['must be at least 1 character'] } });
      expect((await send('GET', '/articles/no-such-article/comments')).status).toBe(404);
      expect((await send('DELETE', `${path}/abc`, { token: bob })).body).toEqual({ errors: { id: ['must be a number'] } });
      const removed = await send('DELETE', `${path}/1`, { token: bob });
      expect(removed.status).toBe(204);
      expect((await send('GET', path)).body).toEqual({ comments: [] });
      expect((await send('DELETE', `${path}/1`, { token: bob })).status).toBe(404);
    });

    it('lists articles most recent first, with filters, pages and articlesCount', async () => {
      await send('POST', '/articles', { token: bob, body: newArticle('Feeding dragons', ['dragons', 'food']) });
      await send('POST', '/articles', { token: bob, body: newArticle('Knots', ['sailing']) });

      const all = await send('GET', '/articles');
      expect(all.status).toBe(200);
      expect(all.body.articlesCount).toBe(3);
      expect(all.body.articles.map((article: { slug: string }) => article.slug)).toEqual(['knots', 'feeding-dragons', 'how-to-train-your-dragon']);
      expect(all.body.articles[0]).not.toHaveProperty('body');

      const slugs = async (query: string) => {
        const { body } = await send('GET', `/articles?${query}`);
        return { count: body.articlesCount, slugs: body.articles.map((article: { slug: string }) => article.slug) };
      };
      expect(await slugs('tag=dragons')).toEqual({ count: 2, slugs: ['feeding-dragons', 'how-to-train-your-dragon'] });
      expect(await slugs('author=ada')).toEqual({ count: 1, slugs: ['how-to-train-your-dragon'] });
      expect(await slugs('author=bob&tag=dragons')).toEqual({ count: 1, slugs: ['feeding-dragons'] });
      expect(await slugs('author=nobody')).toEqual({ count: 0, slugs: [] });
      expect(await slugs('limit=1&offset=1')).toEqual({ count: 3, slugs: ['feeding-dragons'] });
      expect(await slugs('offset=5')).toEqual({ count: 3, slugs: [] });
      expect((await send('GET', '/articles?limit=0')).body).toEqual({ errors: { limit: ['must be at least 1'] } });
      expect((await send('GET', '/articles?offset=-1')).status).toBe(422);
    });

    it('follows a profile, and the feed lists the articles of followed authors', async () => {
      expect((await send('GET', '/articles/feed', { token: ada })).body).toEqual({ articles: [], articlesCount: 0 });
      const followed = await send('POST', '/profiles/bob/follow', { token: ada });
      expect(followed.status).toBe(200);
      expect(followed.body).toEqual({ profile: { username: 'bob', bio: '', image: '', following: true } });
      expect((await send('GET', '/profiles/bob', { token: ada })).body.profile.following).toBe(true);
      expect((await send('GET', '/profiles/bob')).body.profile.following).toBe(false);

      const feed = await send('GET', '/articles/feed?limit=1', { token: ada });
      expect(feed.status).toBe(200);
      expect(feed.body.articlesCount).toBe(2);
      expect(feed.body.articles.map((article: { slug: string }) => article.slug)).toEqual(['knots']);
      expect(feed.body.articles[0].author.following).toBe(true);
      expect((await send('GET', '/articles/feed')).status).toBe(401);

      const unfollowed = await send('DELETE', '/profiles/bob/follow', { token: ada });
      expect(unfollowed.body.profile.following).toBe(false);
      expect((await send('GET', '/articles/feed', { token: ada })).body.articlesCount).toBe(0);
      expect((await send('POST', '/profiles/nobody/follow', { token: ada })).status).toBe(404);
      expect((await send('GET', '/profiles/nobody')).status).toBe(404);
    });

    it('lists the tags of every article, once each', async () => {
      const tags = await send('GET', '/tags');
      expect(tags.status).toBe(200);
      expect(tags.body).toEqual({ tags: ['dragons', 'food', 'sailing', 'training'] });
      // The data is the database's: another API over it answers the same.
      const again = await createConduitApi(db, { onError: (error: unknown) => reported.push(error) }).handle({ method: 'GET', url: '/api/tags' });
      expect(again.body).toEqual(tags.body);
    });

    it('serves its OpenAPI document to anyone, and reported no error on the way', async () => {
      const document = await send('GET', '/openapi.json');
      expect(document.status).toBe(200);
      expect(document.body).toMatchObject({ openapi: '3.1.0', servers: [{ url: '/api' }], security: [{ Token: [] }] });
      // Every error a handler threw is declared, so none was reported as undeclared.
      expect(reported).toEqual([]);
    });
  });

  describe('npm run conduit', () => {
    it('serves the example on PORT and prints its URL', async () => {
      const { spawn } = await import('node:child_process');
      await emptyConduitDatabase(db);
      const { DATABASE_URL: _elsewhere, ...env } = process.env;
      const child = spawn(process.execPath, ['examples/conduit/server.mjs'], { cwd: `${import.meta.dirname}/../..`, env: { ...env, PORT: '0', ...(postgres.url === undefined ? {} : { DATABASE_URL: postgres.url }) } });
      try {
        let output = '';
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            const found = /Conduit API on (http:\/\/localhost:\d+\/api)\n/.exec(output);
            if (found) resolve(found[1]!);
          });
          child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
        });
        const response = await fetch(`${url.replace('localhost', '127.0.0.1')}/tags`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ tags: [] });
      } finally {
        child.kill('SIGTERM');
      }
    }, OPEN_TIMEOUT);
  });

  describe('the OpenAPI document of the Conduit example', () => {
    it('lists, for every operation, exactly the statuses the API answers', async () => {
      const quiet = { onError: () => {}, timeout: false as const };
      await emptyConduitDatabase(db);
      const hashes: Hashes = { ada: '', bob: '' };
      for (const name of ['ada', 'bob'] as const) {
        await addUser(db, { username: name, email: `${name}@example.com`, password: `${name}-password` });
        hashes[name] = (await db.query('select password from conduit.users where username = $1', [name]))[0].password;
      }
      const api = createConduitApi(db, quiet);
      const down = createConduitApi(downDatabase(), quiet);
      const document = (await api.handle({ method: 'GET', url: '/api/openapi.json' })).body as OpenApiDocument;
      for (const route of api.routes) {
        const key = `${route.method} ${toOpenApiPath(route.path)}`;
        const operation = document.paths[toOpenApiPath(route.path)]![route.method.toLowerCase() as 'get']!;
        const observed = new Set<number>();
        for (const { name, down: isDown, request } of PROBES) {
          await seed(db, hashes);
          const response = await (isDown === true ? down : api).handle(request(route));
          const listed = operation.responses[response.status];
          expect(listed, `${key}, ${name}: ${response.status} is not in the document`).toBeDefined();
          const type = headerText(response.headers['content-type'])?.split(';')[0];
          if (type === undefined) expect(response.payload, `${key}, ${name}`).toBeUndefined();
          else expect(Object.keys(listed!.content ?? {}), `${key}, ${name}`).toContain(type);
          if (response.headers.location !== undefined) expect(listed!.headers ?? {}, `${key}, ${name}: Location`).toHaveProperty('Location');
          observed.add(response.status);
        }
        const exceptions = UNOBSERVABLE[key] ?? [];
        for (const status of exceptions) expect(observed.has(status), `${key}: ${status} is observed now; remove it from UNOBSERVABLE`).toBe(false);
        expect(Object.keys(operation.responses).map(Number), key).toEqual([...observed, ...exceptions].sort((a, b) => a - b));
      }
    }, OPEN_TIMEOUT);
  });
});

describe('createConduitApi', () => {
  it('refuses to be built without a database, naming the one to give', () => {
    expect(() => createConduitApi(undefined as never)).toThrow('createConduitApi(db): db is the database that openConduitDatabase() opens, with query(text, params)');
  });
});
