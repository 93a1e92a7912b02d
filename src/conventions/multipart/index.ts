import type { Endpoint } from '../../core/endpoint.js';
import type { Exchange, Step } from '../../core/exchange.js';
import { arrayKeys } from '../../core/query-arrays.js';
import type { Convention, EndpointBuild, EndpointParts } from '../../core/seam.js';
import { isStandardSchema } from '../../core/standard-schema.js';
import { checkLimits, limitsOf, type MultipartLimits, type PartLimits } from './limits.js';
import { PartsReading } from './parts.js';

/**
 * restcanon/multipart: `multipart/form-data` bodies, on `@fastify/busboy`. Fields are gathered and
 * checked by the body schema before the handler runs; files stream to the handler as `ctx.files`,
 * never held whole.
 */

const MULTIPART = 'multipart/form-data';

/**
 * Options of {@link multipart}: the limits of every endpoint's multipart body, which an endpoint may
 * change with `conventions: { multipart: {...} }`.
 *
 * @example
 * const options: MultipartOptions = { fileSize: 20 * 1024 * 1024, files: 4 };
 */
export type MultipartOptions = MultipartLimits;

/**
 * The module that reads `multipart/form-data` bodies, for `createApi({ use: [multipart()] })`. An
 * endpoint that consumes `multipart/form-data` gets its fields (in the order sent, a repeated name
 * as an array) as `ctx.body`, validated by its body schema before the handler runs, and its files as
 * `ctx.files`, an async iterable of `{ field, filename, type, stream }` in the order sent. Fields
 * come before files, as browsers and `curl -F` send them: a field after a file is a 400. A file the
 * handler does not read is drained when it asks for the next one; what it leaves unread once it has
 * answered is not read. The file name is reported as the client gave its last segment, and is never
 * a path. Malformed bodies are a 400, limits a 413 (a part's header lines a 400), each with its code.
 *
 * @example
 * const api = createApi({
 *   use: [multipart({ fileSize: 50 * 1024 * 1024 })],
 *   endpoints: [
 *     endpoint('POST', '/photos', {
 *       consumes: ['multipart/form-data'],
 *       body: z.object({ title: z.string() }),
 *       bodyLimit: 60 * 1024 * 1024,
 *       conventions: { multipart: { files: 1 } },
 *       handle: async (ctx) => {
 *         for await (const file of ctx.files!) await pipeline(file.stream, createWriteStream(join(dir, randomUUID())));
 *         return { title: ctx.body.title };
 *       },
 *     }),
 *   ],
 * });
 */
export function multipart(options: MultipartOptions = {}): Convention {
  const given = checkLimits(options, 'multipart()');
  return Object.freeze({
    name: 'multipart',
    endpoint(endpoint: Endpoint, declared: unknown, build: EndpointBuild): EndpointParts | undefined {
      const consumes = endpoint.consumes.some((type) => type.toLowerCase() === MULTIPART);
      if (!consumes) {
        if (declared !== undefined) throw new TypeError(`${build.where}: it declares multipart limits, and does not consume ${MULTIPART}; add it to "consumes", or drop conventions.multipart`);
        return undefined;
      }
      const limits = limitsOf(checkLimits(declared, `${build.where}: conventions.multipart`), given, endpoint.bodyLimit ?? build.settings.bodyLimit);
      const arrays = isStandardSchema(endpoint.body) ? arrayKeys(endpoint.body) : [];
      return { readers: { [MULTIPART]: readParts(limits, arrays) }, settle: closeParts };
    },
  });
}

function readParts(limits: PartLimits, arrays: readonly string[]): Step {
  return (exchange) => {
    const bodyLimit = exchange.compiled.bodyRules!.limit;
    const reading = new PartsReading(exchange, limits, bodyLimit, arrays);
    (exchange.notes ??= {}).multipart = reading;
    exchange.stop = () => reading.stop();
    return reading.fieldsRead;
  };
}

/** Once the request is answered, what its handler did not read of the body is not read. */
function closeParts(exchange: Exchange): undefined {
  (exchange.notes?.multipart as PartsReading | undefined)?.close();
  return undefined;
}

export type { MultipartLimits };
