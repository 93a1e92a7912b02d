import type { Endpoint } from '../../core/endpoint.js';
import type { Exchange, Step } from '../../core/exchange.js';
import { arrayKeys } from '../../core/query-arrays.js';
import type { Convention, EndpointBuild, EndpointParts } from '../../core/seam.js';
import { isStandardSchema } from '../../core/standard-schema.js';
import { fileRulesOf, type FileField, type FileFields, type FileRules } from './file-fields.js';
import { checkLimits, limitsOf, type MultipartLimits, type PartLimits } from './limits.js';
import { multipartPart } from './openapi.js';
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
 * What an endpoint declares under `conventions: { multipart: {...} }`: its own limits, over the
 * module's, and its `fileFields`: the names its files come under, the media types each takes and how
 * many files each takes. With `fileFields`, a file under another name is a 400
 * (`RC_UNEXPECTED_FILE`), of another type a 415 (`RC_UNSUPPORTED_FILE_TYPE`), past a field's `max`
 * a 413 (`RC_TOO_MANY_FIELD_FILES`), each before the handler sees the file; the OpenAPI document
 * lists the fields in the body's schema and their types in its `encoding`. Without it, files come
 * under any name.
 *
 * @example
 * const declared: MultipartDeclaration = { files: 6, fileFields: { photo: 'image/*', attachments: { type: 'application/pdf', max: 5 } } };
 */
export interface MultipartDeclaration extends MultipartLimits {
  fileFields?: FileFields;
}

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
 *       conventions: { multipart: { fileFields: { photo: 'image/*' } } },
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
    openapi: multipartPart,
    endpoint(endpoint: Endpoint, declared: unknown, build: EndpointBuild): EndpointParts | undefined {
      const consumes = endpoint.consumes.some((type) => type.toLowerCase() === MULTIPART);
      if (!consumes) {
        if (declared !== undefined) throw new TypeError(`${build.where}: it declares conventions.multipart (limits or fileFields), and does not consume ${MULTIPART}; add it to "consumes", or drop conventions.multipart`);
        return undefined;
      }
      const { fileFields, ...own } = isRecord(declared) ? (declared as MultipartDeclaration) : { fileFields: undefined };
      const limits = limitsOf(checkLimits(isRecord(declared) ? own : declared, `${build.where}: conventions.multipart`), given, endpoint.bodyLimit ?? build.settings.bodyLimit);
      const arrays = isStandardSchema(endpoint.body) ? arrayKeys(endpoint.body) : [];
      let rules: FileRules | undefined;
      if (fileFields !== undefined) {
        if (!isStandardSchema(endpoint.body) && endpoint.body !== 'unvalidated') {
          throw new TypeError(`${build.where}: it declares fileFields, and its body is ${JSON.stringify(endpoint.body)}, which multipart() does not read; give "body" a schema of the fields or 'unvalidated', or drop fileFields`);
        }
        rules = fileRulesOf(fileFields, endpoint.body, limits.files, build.where);
      }
      return { readers: { [MULTIPART]: readParts(limits, arrays, rules) }, settle: closeParts };
    },
  });
}

function readParts(limits: PartLimits, arrays: readonly string[], rules: FileRules | undefined): Step {
  return (exchange) => {
    const bodyLimit = exchange.compiled.bodyRules!.limit;
    const reading = new PartsReading(exchange, limits, bodyLimit, arrays, rules);
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type { FileField, FileFields, MultipartLimits };
