/**
 * The RealWorld "Conduit" backend on restcanon's public API: users and their tokens, profiles and
 * follows, articles with favorites and comments, and tags, below `/api`, over the Postgres tables of
 * `store.mjs`. Conduit's own conventions are options here: the `Token` scheme of `Authorization`,
 * 422 for invalid input, the `{"errors":{"<field>":["<message>"]}}` error body, a PUT that changes
 * only the fields it is given, and results wrapped as `{ "article": { ... } }`.
 */
import { collection, createApi, createStatusPolicy, endpoint, NotFoundError, UnauthorizedError, UnprocessableContentError } from 'restcanon';
import { openApi } from 'restcanon/openapi';
import { z } from 'zod';
import * as data from './store.mjs';

export { emptyConduitDatabase, openConduitDatabase } from './store.mjs';

/** Every Conduit path is below it. */
export const BASE_PATH = '/api';

// What clients send.

const NewUser = z.object({ user: z.object({ username: z.string().min(1).max(64), email: z.email(), password: z.string().min(8).max(200) }) });
const Credentials = z.object({ user: z.object({ email: z.string().min(1), password: z.string().min(1) }) });
const UserChanges = z.object({
  user: z.object({ email: z.email(), password: z.string().min(8).max(200), username: z.string().min(1).max(64), bio: z.string().max(2000), image: z.string().max(2000) }).partial(),
});
const NewArticle = z.object({
  article: z.object({ title: z.string().min(1).max(200), description: z.string().max(500), body: z.string().min(1), tagList: z.array(z.string().min(1).max(50)).max(20).optional() }),
});
/** Conduit's PUT of an article changes only the fields it is given. */
const ArticleChanges = z.object({ article: z.object({ title: z.string().min(1).max(200), description: z.string().max(500), body: z.string().min(1) }).partial() });
const NewComment = z.object({ comment: z.object({ body: z.string().min(1).max(5000) }) });
const Page = { limit: z.coerce.number().int().min(1).max(100).default(20), offset: z.coerce.number().int().min(0).default(0) };
const ArticleFilters = z.object({ tag: z.string().optional(), author: z.string().optional(), favorited: z.string().optional(), ...Page });

// What the API sends: the success bodies of the OpenAPI document, and what each answer keeps.

const Profile = z.object({ username: z.string(), bio: z.string(), image: z.string(), following: z.boolean() });
const User = z.object({ email: z.string(), token: z.string(), username: z.string(), bio: z.string(), image: z.string() });
const summaryFields = {
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  tagList: z.array(z.string()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  favorited: z.boolean(),
  favoritesCount: z.number().int(),
  author: Profile,
};
const Article = z.object({ ...summaryFields, body: z.string() });
const Comment = z.object({ id: z.number().int(), createdAt: z.iso.datetime(), updatedAt: z.iso.datetime(), body: z.string(), author: Profile });
const UserEnvelope = z.object({ user: User });
const ProfileEnvelope = z.object({ profile: Profile });
const ArticleEnvelope = z.object({ article: Article });
/** A list of articles leaves out their bodies. */
const ArticleList = z.object({ articles: z.array(z.object(summaryFields)), articlesCount: z.number().int() });
const CommentEnvelope = z.object({ comment: Comment });
const CommentList = z.object({ comments: z.array(Comment) });
const TagList = z.object({ tags: z.array(z.string()) });
const ErrorBody = z.object({ errors: z.record(z.string(), z.array(z.string())) });

/** The objects Conduit wraps a body in: `#/user/email` is the field `email`. */
const WRAPPERS = new Set(['user', 'article', 'comment']);

/** The field an invalid input names: the key below the wrapper, the query or path parameter, or `body`. */
function fieldOf(issue) {
  const segments = issue.pointer.replace(/^#\/?/, '').split('/').filter((segment) => segment !== '').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (issue.in === 'body' && segments.length > 1 && WRAPPERS.has(segments[0])) return segments[1];
  return segments[0] ?? 'body';
}

/**
 * Conduit's error body, `{"errors":{"<field>":["<message>"]}}`, from restcanon's problem: each
 * invalid input under its field, any other error under `body`.
 */
function conduitErrors(problem) {
  if (problem.errors === undefined || problem.errors.length === 0) return { errors: { body: [problem.detail ?? problem.title] } };
  const fields = new Map();
  for (const issue of problem.errors) {
    const field = fieldOf(issue);
    fields.set(field, [...(fields.get(field) ?? []), issue.detail]);
  }
  return { errors: Object.fromEntries(fields) };
}

/** 422 naming the fields another user already has. */
function taken(fields) {
  return new UnprocessableContentError(`The ${fields.join(' and the ')} ${fields.length > 1 ? 'are' : 'is'} taken`, {
    errors: fields.map((field) => ({ in: 'body', pointer: `#/user/${field}`, detail: 'has already been taken' })),
  });
}

/**
 * Builds the Conduit API over its database (`openConduitDatabase()`, whose tables `migrations/`
 * creates); `options` go to `createApi`.
 *
 * @example
 * const api = createConduitApi(await openConduitDatabase());
 */
export function createConduitApi(db, options = {}) {
  if (typeof db?.query !== 'function') throw new TypeError('createConduitApi(db): db is the database that openConduitDatabase() opens, with query(text, params)');
  /** The signed-in user (id, email, username, bio, image), as the request's token found them, on routes that need one. */
  const me = (ctx) => ctx.principal.user;
  /** The signed-in user's id, or null on routes anyone may call. */
  const viewerOf = (ctx) => ctx.principal?.user.id ?? null;
  // The principal carries the user's name, so that these rules, which run without waiting, need not ask the database.
  const isAuthor = (authorName, principal) => authorName === principal.user.username;

  /** `Authorization: Token <token>`: no header is an anonymous caller, an unknown token a 401. */
  async function authenticate(request) {
    const header = request.headers?.authorization;
    if (header === undefined) return undefined;
    const token = /^Token (\S+)$/.exec(String(header))?.[1];
    const user = token === undefined ? undefined : await data.userByToken(db, token);
    if (user === undefined) throw new UnauthorizedError('The token is not valid');
    return { user, token };
  }

  /** A user written with `write`; a unique index that refuses the email or the username is a 422 naming it. */
  async function guarded(write) {
    try {
      return await write();
    } catch (error) {
      const field = data.takenBy(error);
      throw field === undefined ? error : taken([field]);
    }
  }

  // Users and the current user: the spec has no URL per user (a user is read at /profiles/:username),
  // so these are endpoints, not a collection.

  const register = endpoint('POST', '/users', {
    operation: 'create',
    public: true,
    summary: 'Register a user',
    body: NewUser,
    response: UserEnvelope,
    errors: { unprocessable: 'The email or the username is taken' },
    location: (result) => `${BASE_PATH}/profiles/${encodeURIComponent(result.user.username)}`,
    handle: async (ctx) => {
      const fields = await data.takenFields(db, ctx.body.user);
      if (fields.length > 0) throw taken(fields);
      const user = await guarded(() => data.addUser(db, ctx.body.user));
      return { user: data.userView(user, await data.issueToken(db, user)) };
    },
  });

  const login = endpoint('POST', '/users/login', {
    public: true,
    summary: 'Sign in: a token for an email and a password',
    body: Credentials,
    response: UserEnvelope,
    errors: { unauthorized: 'The email or the password is wrong' },
    handle: async (ctx) => {
      const user = await data.signIn(db, ctx.body.user.email, ctx.body.user.password);
      if (user === undefined) throw new UnauthorizedError('The email or the password is wrong');
      return { user: data.userView(user, await data.issueToken(db, user)) };
    },
  });

  const currentUser = endpoint('GET', '/user', {
    summary: 'Read the signed-in user',
    response: UserEnvelope,
    handle: (ctx) => ({ user: data.userView(me(ctx), ctx.principal.token) }),
  });

  const updateCurrentUser = endpoint('PUT', '/user', {
    summary: 'Change the signed-in user: only the fields given',
    body: UserChanges,
    response: UserEnvelope,
    errors: { unprocessable: 'The email or the username is taken' },
    handle: async (ctx) => {
      const fields = await data.takenFields(db, ctx.body.user, me(ctx).id);
      if (fields.length > 0) throw taken(fields);
      const user = await guarded(() => data.updateUser(db, me(ctx).id, ctx.body.user));
      return { user: data.userView(user, ctx.principal.token) };
    },
  });

  // Profiles: one item per username, which anyone may read; following is an action on a profile.

  const profiles = collection('profiles', {
    item: ProfileEnvelope,
    public: ['read'],
    read: async (ctx) => {
      const profile = await data.profileOf(db, ctx.params.id, viewerOf(ctx));
      return profile && { profile };
    },
  });

  const follow = endpoint('POST', '/profiles/:username/follow', {
    summary: 'Follow a user',
    // The spec's follow takes no body, but clients (the RealWorld Postman collection) send one: it may arrive, and is never read.
    body: 'ignored',
    response: ProfileEnvelope,
    errors: { notFound: 'No user has this username' },
    handle: async (ctx) => {
      const profile = await data.follow(db, me(ctx).id, ctx.params.username);
      if (profile === undefined) throw new NotFoundError('No user has this username');
      return { profile };
    },
  });

  const unfollow = endpoint('DELETE', '/profiles/:username/follow', {
    summary: 'Stop following a user',
    response: ProfileEnvelope,
    handle: async (ctx) => {
      const profile = await data.unfollow(db, me(ctx).id, ctx.params.username);
      return profile && { profile }; // undefined: 404
    },
  });

  // Articles by slug: anyone reads, only the author changes; comments below each article.

  const articles = collection('articles', {
    param: 'slug',
    item: ArticleEnvelope,
    body: NewArticle,
    query: ArticleFilters,
    public: ['list', 'read'],
    owner: { rule: (found, principal) => isAuthor(found.article.author.username, principal), on: ['replace', 'remove'] },
    // A created article is wrapped as { article: { slug, ... } }: its Location is /api/articles/<slug>.
    idOf: (created) => created.article.slug,
    list: {
      response: ArticleList,
      handle: (ctx) => data.findArticles(db, ctx.query, viewerOf(ctx)),
    },
    read: async (ctx) => {
      const article = await data.articleOf(db, ctx.params.id, viewerOf(ctx));
      return article && { article };
    },
    create: async (ctx) => ({ article: await data.addArticle(db, me(ctx).id, ctx.body.article) }),
    replace: {
      summary: 'Change an article: only the fields given',
      body: ArticleChanges,
      handle: async (ctx) => {
        const article = await data.updateArticle(db, ctx.params.id, ctx.body.article, me(ctx).id);
        return article && { article };
      },
    },
    remove: (ctx) => data.removeArticle(db, ctx.params.id), // true: 204
  });

  articles.collection('comments', {
    id: z.coerce.number().int().positive(),
    item: CommentEnvelope,
    body: NewComment,
    public: ['list'],
    owner: { rule: (found, principal) => isAuthor(found.comment.author.username, principal), on: ['remove'] },
    idOf: (created) => created.comment.id,
    list: {
      response: CommentList,
      handle: async (ctx) => ({ comments: await data.commentsOf(db, ctx.params.slug, viewerOf(ctx)) }),
    },
    // The spec has no GET of one comment: its owner rule loads it before a delete without publishing one.
    load: async (ctx) => {
      const comment = await data.commentOf(db, ctx.params.slug, ctx.params.id, viewerOf(ctx));
      return comment && { comment };
    },
    create: {
      outcomes: ['submit'],
      handle: async (ctx) => {
        const comment = await data.addComment(db, ctx.params.slug, me(ctx).id, ctx.body.comment.body);
        // The article was there when the request began: gone since, it is a 404.
        if (comment === undefined) throw new NotFoundError('No article has this slug');
        // The spec answers a new comment with 200, not a create's 201.
        ctx.outcome('submit');
        return { comment };
      },
    },
    remove: (ctx) => data.removeComment(db, ctx.params.slug, ctx.params.id), // true: 204
  });

  const feed = endpoint('GET', '/articles/feed', {
    operation: 'list',
    summary: 'List the articles of the users the caller follows',
    query: z.object(Page),
    response: ArticleList,
    handle: (ctx) => data.findArticles(db, { ...ctx.query, followedBy: me(ctx).id }, me(ctx).id),
  });

  const favorite = endpoint('POST', '/articles/:slug/favorite', {
    summary: 'Favorite an article',
    response: ArticleEnvelope,
    errors: { notFound: 'No article has this slug' },
    handle: async (ctx) => {
      const article = await data.favorite(db, ctx.params.slug, me(ctx).id);
      if (article === undefined) throw new NotFoundError('No article has this slug');
      return { article };
    },
  });

  const unfavorite = endpoint('DELETE', '/articles/:slug/favorite', {
    summary: 'Stop favoriting an article',
    response: ArticleEnvelope,
    handle: async (ctx) => {
      const article = await data.unfavorite(db, ctx.params.slug, me(ctx).id);
      return article && { article }; // undefined: 404
    },
  });

  const tags = collection('tags', {
    public: true,
    list: { response: TagList, handle: async () => ({ tags: await data.allTags(db) }) },
  });

  return createApi({
    basePath: BASE_PATH,
    // Each collection before the endpoints that answer its item, which the OpenAPI document then names after it (Article, Profile).
    resources: [{ endpoints: [register, login, currentUser, updateCurrentUser] }, profiles, { endpoints: [follow, unfollow] }, articles, { endpoints: [feed, favorite, unfavorite] }, tags],
    authenticate,
    challenge: 'Token',
    policy: createStatusPolicy({ badRequest: 422 }),
    problemBody: { build: conduitErrors, schema: ErrorBody },
    openapi: openApi({
      info: { title: 'Conduit on restcanon', version: '1.0.0', description: 'The RealWorld Conduit backend on Postgres, written on restcanon.', license: { name: 'MIT', identifier: 'MIT' } },
      securitySchemes: {
        Token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Authorization: Token <token>, with the token that registering or signing in gives. A 401 carries WWW-Authenticate: Token.' },
      },
    }),
    onError: (error, { requestId }) => console.error(`[${requestId}]`, error),
    ...options,
  });
}
