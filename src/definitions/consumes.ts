import { parseMediaType } from '../core/media-type.js';

/**
 * Checks what an endpoint consumes, when it is defined: each entry a media type (`image/png`) or a
 * range of them (`image/*`, `*\/*`) without parameters, and a body taken as bytes (`'bytes'`,
 * `'stream'`) of some type other than JSON.
 *
 * @example
 * checkConsumes(['image/*'], 'bytes', 'endpoint(PUT /avatar)'); // passes
 * checkConsumes(['application/json'], 'stream', 'endpoint(PUT /avatar)'); // throws
 */
export function checkConsumes(consumes: unknown, body: unknown, where: string): void {
  if (consumes === undefined) {
    if (body === 'bytes' || body === 'stream') throw asBytes(body, where);
    return;
  }
  if (!Array.isArray(consumes) || consumes.length === 0) throw new TypeError(`${where}: "consumes" must be a non-empty array of media types, such as ['application/json'] or ['image/*']`);
  for (const entry of consumes as unknown[]) {
    const media = typeof entry === 'string' ? parseMediaType(entry) : undefined;
    const wrong = media === undefined || media.parameters.size > 0 || (media.type === '*' && media.subtype !== '*') || entry !== (entry as string).trim();
    if (wrong) {
      throw new TypeError(`${where}: "consumes" holds ${JSON.stringify(entry)}, which is no media type; give a type/subtype without parameters, such as 'application/octet-stream', or a range such as 'image/*'`);
    }
  }
  if ((body === 'bytes' || body === 'stream') && consumes.every((type: string) => type.toLowerCase() === 'application/json')) throw asBytes(body, where);
}

function asBytes(body: string, where: string): TypeError {
  return new TypeError(`${where}: body '${body}' takes bytes, and "consumes" names only JSON; name the media types of those bytes, such as consumes: ['application/octet-stream'] or ['image/*']`);
}
