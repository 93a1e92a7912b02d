/**
 * The demo's avatars: a user sends their own as PNG, JPEG or WebP bytes (`PUT /users/:id/avatar`),
 * anyone reads it in the type it was sent in, with an ETag and 304s (`GET`, public, so that an
 * `<img>` shows it), and the user or the admin removes it. Kept in Postgres as `bytea`, with its
 * media type and a version that is its ETag (examples/migrations/002-avatars.sql).
 */
import { endpoint, NotFoundError, UnprocessableContentError } from 'restcanon';
import { z } from 'zod';

/** The image types an avatar may have, and how the first bytes of each begin. */
const IMAGE_TYPES = {
  'image/png': { name: 'PNG', extension: 'png', is: (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  'image/jpeg': { name: 'JPEG', extension: 'jpg', is: (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff]) },
  // "RIFF", four bytes of length, "WEBP".
  'image/webp': { name: 'WebP', extension: 'webp', is: (bytes) => startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes.subarray(8), [0x57, 0x45, 0x42, 0x50]) },
};

const startsWith = (bytes, prefix) => bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);

/** The largest avatar accepted: a larger body is a 413 before it is read whole. */
export const AVATAR_LIMIT = 1024 * 1024;

/**
 * A PNG of one pixel: what `npm start` writes for the README's upload, and what the tests send.
 *
 * @example
 * await writeFile('avatar.png', DEMO_AVATAR_PNG);
 */
export const DEMO_AVATAR_PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'));

const UserId = z.coerce.number().int().positive();
const Avatar = z.object({ type: z.string(), size: z.number().int() });

/**
 * The avatar endpoints of the demo over its database. `isAdmin(principal)` says who removes anyone's.
 *
 * @example
 * const api = createApi({ endpoints: avatarEndpoints(db, (principal) => principal?.role === 'admin') });
 */
export function avatarEndpoints(db, isAdmin) {
  const params = { id: UserId };
  const send = endpoint('PUT', '/users/:id/avatar', {
    params,
    consumes: Object.keys(IMAGE_TYPES),
    body: 'bytes',
    bodyLimit: AVATAR_LIMIT,
    response: Avatar,
    summary: "Sets the caller's own avatar: PNG, JPEG or WebP bytes of up to 1 MiB",
    authorize: (ctx) => ctx.principal.id === ctx.params.id,
    errors: { unprocessable: 'The bytes are not an image of the Content-Type sent' },
    handle: async (ctx) => {
      const type = ctx.request.headers['content-type'].split(';')[0].trim().toLowerCase();
      // The type a client names is a claim: bytes that are something else would go out later under it.
      if (!IMAGE_TYPES[type].is(ctx.body)) throw new UnprocessableContentError(`The bytes are not a ${IMAGE_TYPES[type].name} image`);
      const [row] = await db.query(
        `insert into avatars (user_id, type, bytes) values ($1, $2, $3)
         on conflict (user_id) do update set type = excluded.type, bytes = excluded.bytes, version = nextval('avatar_versions')
         returning version`,
        [ctx.params.id, type, ctx.body],
      );
      ctx.set('ETag', `"${row.version}"`);
      return { type, size: ctx.body.byteLength };
    },
  });
  const read = endpoint('GET', '/users/:id/avatar', {
    params,
    query: z.object({ download: z.literal('1').optional() }),
    public: true,
    produces: Object.keys(IMAGE_TYPES),
    summary: "A user's avatar, in the type it was sent in; ?download=1 saves it as a file",
    conditional: {
      load: async (ctx) => (await db.query('select type, bytes, version from avatars where user_id = $1', [ctx.params.id]))[0],
      etag: (avatar) => String(avatar.version),
    },
    handle: (ctx) => {
      const { type, bytes } = ctx.item;
      // Any cache may keep it, and asks again each time: a 304 while the ETag holds.
      ctx.set('Cache-Control', 'public, no-cache');
      if (ctx.query.download === '1') ctx.attachment(`avatar-${ctx.params.id}.${IMAGE_TYPES[type].extension}`);
      // A Blob of its own type: the avatar goes out as the type it has, whichever of `produces` comes first.
      return new Blob([bytes], { type });
    },
  });
  const remove = endpoint('DELETE', '/users/:id/avatar', {
    params,
    authorize: (ctx) => isAdmin(ctx.principal) || ctx.principal.id === ctx.params.id,
    summary: "Removes a user's avatar",
    handle: async (ctx) => {
      const rows = await db.query('delete from avatars where user_id = $1 returning user_id', [ctx.params.id]);
      if (rows.length === 0) throw new NotFoundError('The user has no avatar');
      return true;
    },
  });
  return [send, read, remove];
}
