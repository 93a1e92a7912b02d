/**
 * The data of the Conduit example in Postgres (the tables of `migrations/`, through
 * `examples/database.mjs`: PGlite in the process, or a server) and what the API sends of it: users
 * with hashed passwords, the tokens issued to them, follows, articles with their favorites, and
 * comments. Each function is one or two hand-written, parameterized statements. Nothing here knows
 * HTTP or restcanon; `api.mjs` declares the routes on top of it.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { openDatabase, parameters } from '../database.mjs';

/**
 * The folder of Conduit's migrations.
 *
 * @example
 * await migrate(db, CONDUIT_MIGRATIONS);
 */
export const CONDUIT_MIGRATIONS = new URL('./migrations/', import.meta.url);

/**
 * Conduit's database with its schema: PGlite in memory, or the Postgres server `url` (by default
 * DATABASE_URL) names.
 *
 * @example
 * const db = await openConduitDatabase();
 * const api = createConduitApi(db);
 */
export function openConduitDatabase(options = {}) {
  return openDatabase({ ...options, migrations: CONDUIT_MIGRATIONS });
}

/**
 * Empties every Conduit table, numbering ids from 1 again.
 *
 * @example
 * await emptyConduitDatabase(db);
 */
export function emptyConduitDatabase(db) {
  return db.exec('truncate conduit.users, conduit.tokens, conduit.follows, conduit.articles, conduit.favorites, conduit.comments restart identity cascade');
}

// Users, passwords and tokens.

function hashPassword(password) {
  const salt = randomBytes(16);
  return `${salt.toString('base64')}:${scryptSync(password, salt, 32).toString('base64')}`;
}

function passwordMatches(hashed, password) {
  const [salt, hash] = hashed.split(':');
  return timingSafeEqual(scryptSync(password, Buffer.from(salt, 'base64'), 32), Buffer.from(hash, 'base64'));
}

const USER = 'id, email, username, bio, image';

/**
 * The user a token was issued to, or undefined.
 *
 * @example
 * const user = await userByToken(db, token); // { id, email, username, bio, image }
 */
export async function userByToken(db, token) {
  const [user] = await db.query(`select u.id, u.email, u.username, u.bio, u.image from conduit.tokens t join conduit.users u on u.id = t.user_id where t.token = $1`, [token]);
  return user;
}

/**
 * The fields of `wanted` (email, username) that a user other than `selfId` already has.
 *
 * @example
 * await takenFields(db, { email: 'ADA@example.com' }); // ['email'] when ada@example.com is a user's
 */
export async function takenFields(db, wanted, selfId = null) {
  const [found] = await db.query(
    `select coalesce(bool_or(lower(email) = lower($1)), false) as email, coalesce(bool_or(username = $2), false) as username
       from conduit.users where (lower(email) = lower($1) or username = $2) and id is distinct from $3::integer`,
    [wanted.email ?? null, wanted.username ?? null, selfId],
  );
  return ['email', 'username'].filter((field) => found[field]);
}

/** The indexes that keep an email and a username to one user each, by the field they guard. */
const UNIQUE = { users_email_unique: 'email', users_username_unique: 'username' };

/**
 * The field a statement's error says another user took (two requests that asked for it at once, both
 * past `takenFields`), or undefined for any other error.
 *
 * @example
 * try { await addUser(db, wanted); } catch (error) { if (takenBy(error) === 'email') ... }
 */
export function takenBy(error) {
  return error?.code === '23505' ? UNIQUE[error.constraint] : undefined;
}

/**
 * A new user, whose password is kept as a salted scrypt hash.
 *
 * @example
 * const user = await addUser(db, { username: 'ada', email: 'ada@example.com', password: 'ada-password' });
 */
export async function addUser(db, { username, email, password }) {
  const [user] = await db.query(`insert into conduit.users (email, username, password) values ($1, $2, $3) returning ${USER}`, [email, username, hashPassword(password)]);
  return user;
}

/**
 * The user with this email (whatever its case) and password, or undefined.
 *
 * @example
 * const user = await signIn(db, 'Ada@example.com', 'ada-password');
 */
export async function signIn(db, email, password) {
  const [row] = await db.query(`select ${USER}, password as hashed from conduit.users where lower(email) = lower($1)`, [email]);
  if (row === undefined) return undefined;
  const { hashed, ...user } = row;
  return passwordMatches(hashed, password) ? user : undefined;
}

/**
 * Changes the fields given, and leaves the others as they are: the user as they are now.
 *
 * @example
 * const user = await updateUser(db, 1, { bio: 'Writes about dragons' });
 */
export async function updateUser(db, id, { email, username, bio, image, password }) {
  const [user] = await db.query(
    `update conduit.users set email = coalesce($2, email), username = coalesce($3, username), bio = coalesce($4, bio), image = coalesce($5, image), password = coalesce($6, password)
       where id = $1 returning ${USER}`,
    [id, email ?? null, username ?? null, bio ?? null, image ?? null, password === undefined ? null : hashPassword(password)],
  );
  return user;
}

/**
 * A new token for the user, which `userByToken` finds them by.
 *
 * @example
 * const token = await issueToken(db, user);
 */
export async function issueToken(db, user) {
  const token = randomBytes(24).toString('base64url');
  await db.query('insert into conduit.tokens (token, user_id) values ($1, $2)', [token, user.id]);
  return token;
}

// Profiles and follows. `viewerId` is the signed-in user's id, or null when the caller is anonymous.

/**
 * A user's profile as the viewer sees it, or undefined when no user has this username.
 *
 * @example
 * await profileOf(db, 'bob', 1); // { username: 'bob', bio: '', image: '', following: true }
 */
export async function profileOf(db, username, viewerId) {
  const [row] = await db.query(
    `select u.username, u.bio, u.image, exists (select 1 from conduit.follows f where f.follower_id = $2::integer and f.followed_id = u.id) as following
       from conduit.users u where u.username = $1`,
    [username, viewerId],
  );
  return row;
}

/**
 * The follower follows the user with this username: their profile, or undefined when there is none.
 *
 * @example
 * const profile = await follow(db, 1, 'bob');
 */
export async function follow(db, followerId, username) {
  await db.query('insert into conduit.follows (follower_id, followed_id) select $1, id from conduit.users where username = $2 on conflict do nothing', [followerId, username]);
  return profileOf(db, username, followerId);
}

/**
 * The follower stops following the user with this username: their profile, or undefined when there is none.
 *
 * @example
 * const profile = await unfollow(db, 1, 'bob');
 */
export async function unfollow(db, followerId, username) {
  await db.query('delete from conduit.follows where follower_id = $1 and followed_id = (select id from conduit.users where username = $2)', [followerId, username]);
  return profileOf(db, username, followerId);
}

// Articles, favorites and comments.

function slugOf(title) {
  return title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'article';
}

/** Tags once each, in alphabetical order. */
const tagsOf = (tagList = []) => [...new Set(tagList)].sort();

/**
 * An article as the viewer (the parameter `viewer`, an integer or null) sees it: its author's
 * profile, its favorites count and whether the viewer is one of them.
 */
function articleSelect(viewer, { body }) {
  return `select a.slug, a.title, a.description, ${body ? 'a.body, ' : ''}a.tag_list as "tagList", a.created_at as "createdAt", a.updated_at as "updatedAt",
      exists (select 1 from conduit.favorites f where f.article_id = a.id and f.user_id = ${viewer}) as favorited,
      (select count(*)::integer from conduit.favorites f where f.article_id = a.id) as "favoritesCount",
      u.username, u.bio, u.image, exists (select 1 from conduit.follows w where w.follower_id = ${viewer} and w.followed_id = u.id) as following
    from conduit.articles a join conduit.users u on u.id = a.author_id`;
}

/** The row of `articleSelect` as the API sends it. */
function articleOfRow({ username, bio, image, following, createdAt, updatedAt, ...article }) {
  return { ...article, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString(), author: { username, bio, image, following } };
}

/**
 * The article with this slug as the viewer sees it, body included, or undefined.
 *
 * @example
 * const article = await articleOf(db, 'how-to-train-your-dragon', null);
 */
export async function articleOf(db, slug, viewerId) {
  const rows = await db.query(`${articleSelect('$2::integer', { body: true })} where a.slug = $1`, [slug, viewerId]);
  return rows.length === 0 ? undefined : articleOfRow(rows[0]);
}

/**
 * A new article; its slug comes from its title, with a number when another article has it. The
 * unique index decides which slug is free, so that two articles of one title created at once get
 * two slugs.
 *
 * @example
 * const article = await addArticle(db, 1, { title: 'Knots', description: 'Which to tie', body: '...', tagList: ['sailing'] });
 */
export async function addArticle(db, authorId, { title, description, body, tagList }) {
  const base = slugOf(title);
  for (let count = 1; ; count++) {
    const slug = count === 1 ? base : `${base}-${count}`;
    const [created] = await db.query(
      'insert into conduit.articles (slug, title, description, body, tag_list, author_id) values ($1, $2, $3, $4, $5, $6) on conflict (slug) do nothing returning slug',
      [slug, title, description, body, tagsOf(tagList), authorId],
    );
    if (created !== undefined) return articleOf(db, slug, authorId);
  }
}

/**
 * Changes title, description or body. The slug stays, so that the article's URL never changes.
 *
 * @example
 * const article = await updateArticle(db, 'knots', { body: 'Reef knots first' }, 1);
 */
export async function updateArticle(db, slug, { title, description, body }, viewerId) {
  await db.query('update conduit.articles set title = coalesce($2, title), description = coalesce($3, description), body = coalesce($4, body), updated_at = now() where slug = $1', [
    slug,
    title ?? null,
    description ?? null,
    body ?? null,
  ]);
  return articleOf(db, slug, viewerId);
}

/**
 * Removes an article, and with it its comments and favorites; false when there was none.
 *
 * @example
 * await removeArticle(db, 'knots'); // true
 */
export async function removeArticle(db, slug) {
  return (await db.query('delete from conduit.articles where slug = $1 returning id', [slug])).length > 0;
}

/**
 * Articles, most recent first, without their bodies, that pass the filters: `tag`, `author` (a
 * username), `favorited` (a username), `followedBy` (a user id, for the feed); the page from
 * `offset`, `limit` long, and how many pass the filters in all.
 *
 * @example
 * const { articles, articlesCount } = await findArticles(db, { tag: 'dragons', offset: 0, limit: 20 }, null);
 */
export async function findArticles(db, { tag, author, favorited, followedBy, offset, limit }, viewerId) {
  /** The WHERE of the filters given, with their values in `params`. */
  const filtersOf = (params) => {
    const where = [];
    if (tag !== undefined) where.push(`a.tag_list @> array[${params.value(tag, 'text')}]`);
    if (author !== undefined) where.push(`a.author_id = (select id from conduit.users where username = ${params.value(author, 'text')})`);
    if (favorited !== undefined) {
      where.push(`a.id in (select f.article_id from conduit.favorites f join conduit.users fan on fan.id = f.user_id where fan.username = ${params.value(favorited, 'text')})`);
    }
    if (followedBy !== undefined) where.push(`a.author_id in (select followed_id from conduit.follows where follower_id = ${params.value(followedBy, 'integer')})`);
    return where.length === 0 ? '' : `where ${where.join(' and ')}`;
  };
  const counting = parameters();
  const [{ count }] = await db.query(`select count(*)::integer as count from conduit.articles a ${filtersOf(counting)}`, counting.list);
  const params = parameters();
  const viewer = params.value(viewerId, 'integer');
  const filters = filtersOf(params);
  const page = await db.query(`${articleSelect(viewer, { body: false })} ${filters} order by a.id desc limit ${params.value(limit, 'integer')} offset ${params.value(offset, 'integer')}`, params.list);
  return { articles: page.map(articleOfRow), articlesCount: count };
}

/**
 * The user favorites the article: the article as they see it, or undefined when there is none.
 *
 * @example
 * const article = await favorite(db, 'knots', 2);
 */
export async function favorite(db, slug, userId) {
  await db.query('insert into conduit.favorites (article_id, user_id) select id, $2 from conduit.articles where slug = $1 on conflict do nothing', [slug, userId]);
  return articleOf(db, slug, userId);
}

/**
 * The user stops favoriting the article: the article as they see it, or undefined when there is none.
 *
 * @example
 * const article = await unfavorite(db, 'knots', 2);
 */
export async function unfavorite(db, slug, userId) {
  await db.query('delete from conduit.favorites where user_id = $2 and article_id = (select id from conduit.articles where slug = $1)', [slug, userId]);
  return articleOf(db, slug, userId);
}

const COMMENT = `select c.id, c.created_at as "createdAt", c.updated_at as "updatedAt", c.body,
    u.username, u.bio, u.image, exists (select 1 from conduit.follows w where w.follower_id = $2::integer and w.followed_id = u.id) as following
  from conduit.comments c join conduit.users u on u.id = c.author_id join conduit.articles a on a.id = c.article_id where a.slug = $1`;

function commentOfRow({ username, bio, image, following, createdAt, updatedAt, ...comment }) {
  return { ...comment, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString(), author: { username, bio, image, following } };
}

/**
 * An article's comments as the viewer sees them, oldest first.
 *
 * @example
 * const comments = await commentsOf(db, 'knots', null);
 */
export async function commentsOf(db, slug, viewerId) {
  return (await db.query(`${COMMENT} order by c.id`, [slug, viewerId])).map(commentOfRow);
}

/**
 * The comment with this id below the article with this slug, or undefined.
 *
 * @example
 * const comment = await commentOf(db, 'knots', 1, null);
 */
export async function commentOf(db, slug, id, viewerId) {
  const rows = await db.query(`${COMMENT} and c.id = $3`, [slug, viewerId, id]);
  return rows.length === 0 ? undefined : commentOfRow(rows[0]);
}

/**
 * A new comment on the article with this slug, or undefined when there is no such article.
 *
 * @example
 * const comment = await addComment(db, 'knots', 2, 'Thank you!');
 */
export async function addComment(db, slug, authorId, body) {
  const [created] = await db.query('insert into conduit.comments (article_id, author_id, body) select id, $2, $3 from conduit.articles where slug = $1 returning id', [slug, authorId, body]);
  return created === undefined ? undefined : commentOf(db, slug, created.id, authorId);
}

/**
 * Removes a comment of the article with this slug; false when there was none.
 *
 * @example
 * await removeComment(db, 'knots', 1); // true
 */
export async function removeComment(db, slug, id) {
  return (await db.query('delete from conduit.comments where id = $2 and article_id = (select id from conduit.articles where slug = $1) returning id', [slug, id])).length > 0;
}

/**
 * Every tag of every article, once each, in the order of their bytes (the "C" collation), whatever
 * the database's own.
 *
 * @example
 * await allTags(db); // ['dragons', 'sailing']
 */
export async function allTags(db) {
  return (await db.query('select distinct tag collate "C" as tag from conduit.articles, unnest(tag_list) as tag order by tag')).map((row) => row.tag);
}

/**
 * What the API sends of a user: the token is the one the request came with, or the one just issued.
 *
 * @example
 * const body = { user: userView(user, token) };
 */
export function userView(user, token) {
  return { email: user.email, token, username: user.username, bio: user.bio, image: user.image };
}
