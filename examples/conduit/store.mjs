/**
 * The in-memory data of the Conduit example and what the API sends of it: users with hashed
 * passwords, the tokens issued to them, articles with their favorites, and comments. Nothing here
 * knows HTTP or restcanon; `api.mjs` declares the routes on top of it.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** An empty store. Plain maps and sets, so that `structuredClone` copies one whole. */
export function createConduitStore() {
  return {
    /** id → { id, email, username, bio, image, password, following: Set<user id> } */
    users: new Map(),
    /** token → user id: the opaque tokens handed out by registration and login. */
    tokens: new Map(),
    /** slug → { slug, title, description, body, tagList, createdAt, updatedAt, authorId, favoritedBy: Set<user id> } */
    articles: new Map(),
    /** id → { id, slug, body, createdAt, updatedAt, authorId } */
    comments: new Map(),
    nextUserId: 1,
    nextCommentId: 1,
  };
}

// Users, passwords and tokens.

function hashPassword(password) {
  const salt = randomBytes(16);
  return `${salt.toString('base64')}:${scryptSync(password, salt, 32).toString('base64')}`;
}

function passwordMatches(user, password) {
  const [salt, hash] = user.password.split(':');
  return timingSafeEqual(scryptSync(password, Buffer.from(salt, 'base64'), 32), Buffer.from(hash, 'base64'));
}

export function userByEmail(store, email) {
  const wanted = email.toLowerCase();
  for (const user of store.users.values()) if (user.email.toLowerCase() === wanted) return user;
  return undefined;
}

export function userByUsername(store, username) {
  for (const user of store.users.values()) if (user.username === username) return user;
  return undefined;
}

/** The fields of `wanted` (email, username) that another user already has. */
export function takenFields(store, wanted, self = undefined) {
  const taken = [];
  const byEmail = wanted.email === undefined ? undefined : userByEmail(store, wanted.email);
  if (byEmail !== undefined && byEmail !== self) taken.push('email');
  const byUsername = wanted.username === undefined ? undefined : userByUsername(store, wanted.username);
  if (byUsername !== undefined && byUsername !== self) taken.push('username');
  return taken;
}

export function addUser(store, { username, email, password }) {
  const user = { id: store.nextUserId++, email, username, bio: '', image: '', password: hashPassword(password), following: new Set() };
  store.users.set(user.id, user);
  return user;
}

/** The user with this email and password, or undefined. */
export function signIn(store, email, password) {
  const user = userByEmail(store, email);
  return user !== undefined && passwordMatches(user, password) ? user : undefined;
}

export function updateUser(user, changes) {
  const { password, ...fields } = changes;
  Object.assign(user, fields);
  if (password !== undefined) user.password = hashPassword(password);
  return user;
}

export function issueToken(store, user) {
  const token = randomBytes(24).toString('base64url');
  store.tokens.set(token, user.id);
  return token;
}

// Articles, favorites and comments.

function slugOf(title) {
  return title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'article';
}

/** The slug of a new article: from its title, with a number when another article has it. */
function freeSlug(store, title) {
  const base = slugOf(title);
  let slug = base;
  for (let count = 2; store.articles.has(slug); count++) slug = `${base}-${count}`;
  return slug;
}

/** Tags once each, in alphabetical order. */
const tagsOf = (tagList = []) => [...new Set(tagList)].sort();

export function addArticle(store, author, { title, description, body, tagList }) {
  const now = new Date().toISOString();
  const article = { slug: freeSlug(store, title), title, description, body, tagList: tagsOf(tagList), createdAt: now, updatedAt: now, authorId: author.id, favoritedBy: new Set() };
  store.articles.set(article.slug, article);
  return article;
}

/** Changes title, description or body. The slug stays, so that the article's URL never changes. */
export function updateArticle(article, changes) {
  Object.assign(article, changes, { updatedAt: new Date().toISOString() });
  return article;
}

/** Removes an article and its comments; false when there was none. */
export function removeArticle(store, slug) {
  for (const comment of store.comments.values()) if (comment.slug === slug) store.comments.delete(comment.id);
  return store.articles.delete(slug);
}

/**
 * Articles, most recent first, that pass the filters: `tag`, `author` (a username), `favorited`
 * (a username), `followedBy` (a user, for the feed); then the page from `offset`, `limit` long.
 */
export function findArticles(store, { tag, author, favorited, followedBy, offset, limit }) {
  const authorId = author === undefined ? undefined : userByUsername(store, author)?.id ?? -1;
  const fanId = favorited === undefined ? undefined : userByUsername(store, favorited)?.id ?? -1;
  const found = [...store.articles.values()].reverse().filter(
    (article) =>
      (tag === undefined || article.tagList.includes(tag)) &&
      (authorId === undefined || article.authorId === authorId) &&
      (fanId === undefined || article.favoritedBy.has(fanId)) &&
      (followedBy === undefined || followedBy.following.has(article.authorId)),
  );
  return { page: found.slice(offset, offset + limit), count: found.length };
}

export function addComment(store, slug, author, body) {
  const now = new Date().toISOString();
  const comment = { id: store.nextCommentId++, slug, body, createdAt: now, updatedAt: now, authorId: author.id };
  store.comments.set(comment.id, comment);
  return comment;
}

export function commentsOf(store, slug) {
  return [...store.comments.values()].filter((comment) => comment.slug === slug);
}

/** Every tag of every article, once each, in alphabetical order. */
export function allTags(store) {
  return tagsOf([...store.articles.values()].flatMap((article) => article.tagList));
}

// What the API sends: each view as the viewer (a user, or undefined when anonymous) sees it.

export function userView(user, token) {
  return { email: user.email, token, username: user.username, bio: user.bio, image: user.image };
}

export function profileView(user, viewer) {
  return { username: user.username, bio: user.bio, image: user.image, following: viewer?.following.has(user.id) ?? false };
}

/** An article as one entry of a list: everything but its body. */
export function articleSummary(store, article, viewer) {
  return {
    slug: article.slug,
    title: article.title,
    description: article.description,
    tagList: [...article.tagList],
    createdAt: article.createdAt,
    updatedAt: article.updatedAt,
    favorited: viewer !== undefined && article.favoritedBy.has(viewer.id),
    favoritesCount: article.favoritedBy.size,
    author: profileView(store.users.get(article.authorId), viewer),
  };
}

export function articleView(store, article, viewer) {
  return { ...articleSummary(store, article, viewer), body: article.body };
}

export function commentView(store, comment, viewer) {
  return { id: comment.id, createdAt: comment.createdAt, updatedAt: comment.updatedAt, body: comment.body, author: profileView(store.users.get(comment.authorId), viewer) };
}
