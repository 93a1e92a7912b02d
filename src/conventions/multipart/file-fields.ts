/**
 * The file fields an endpoint declares: the names its files may come under, the media types each
 * takes, and how many files each takes. Checked when the API is built; every file of a request is
 * held to them before the handler sees it.
 */
import type { HttpError } from '../../core/errors.js';
import { parseMediaType, specificity, type MediaType } from '../../core/media-type.js';
import { propertyKeys } from '../../core/query-arrays.js';
import { isStandardSchema, type StandardSchema } from '../../core/standard-schema.js';
import { FILE_FAILURES } from './failures.js';

/**
 * One file field: the media types or ranges it takes (`'image/*'`, `['image/png', 'image/jpeg']`,
 * `'*\/*'` for any), and the most files it takes (1 unless `max` says more).
 *
 * @example
 * const scans: FileField = { type: ['application/pdf', 'image/*'], max: 5 };
 */
export interface FileField {
  readonly type: string | readonly string[];
  readonly max?: number;
}

/**
 * The file fields of an endpoint, by the form field's name: a media type or range, a list of them,
 * or a {@link FileField} with its `max`. A file under any other name is refused.
 *
 * @example
 * const fileFields: FileFields = { photo: 'image/*', attachments: { type: 'application/pdf', max: 5 } };
 */
export type FileFields = Readonly<Record<string, string | readonly string[] | FileField>>;

/**
 * One declared field as the request's files are held to it.
 *
 * @example
 * const rule: FileRule = { types: ['image/*'], ranges: [parseMediaType('image/*')!], max: 1 };
 */
export interface FileRule {
  /** The media types and ranges it takes, as declared (lower-cased), for messages and the document. */
  readonly types: readonly string[];
  readonly ranges: readonly MediaType[];
  readonly max: number;
}

/**
 * The declared fields, by name: a map, so that a name a client sends (`constructor`) is never looked
 * up on a prototype.
 *
 * @example
 * const rules: FileRules = fileRulesOf({ photo: 'image/*' }, 'unvalidated', 10, 'POST /photos');
 */
export type FileRules = ReadonlyMap<string, FileRule>;

const EXAMPLE = `{ photo: 'image/*', attachments: { type: 'application/pdf', max: 5 } }`;

/**
 * Checks an endpoint's `fileFields` and reads it into rules: names that are no property of the body
 * schema (a name is a field or a file, never both) nor `__proto__`, media types or ranges without
 * parameters, a `max` of at least 1 and at most the endpoint's `files` limit.
 *
 * @example
 * fileRulesOf({ photo: 'image/*' }, z.object({ title: z.string() }), 10, 'POST /photos'); // Map { 'photo' => { types: ['image/*'], max: 1, ... } }
 * fileRulesOf({ title: 'image/*' }, z.object({ title: z.string() }), 10, 'POST /photos'); // throws: title is a field of the body schema
 */
export function fileRulesOf(declared: unknown, body: unknown, files: number, where: string): FileRules {
  const what = `${where}: conventions.multipart.fileFields`;
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) throw new TypeError(`${what} must be an object of file fields by name, such as ${EXAMPLE}`);
  const fields = isStandardSchema(body) ? new Set(propertyKeys(body as StandardSchema)) : new Set<string>();
  const rules = new Map<string, FileRule>();
  for (const [name, field] of Object.entries(declared)) {
    if (name === '') throw new TypeError(`${what} has a field with an empty name; name each file field as the form sends it`);
    if (name === '__proto__') throw new TypeError(`${what} declares "__proto__", a name refused as a key of any body, which no document can list; name the file field otherwise`);
    if (fields.has(name)) throw new TypeError(`${what} declares "${name}", which is also a property of the body schema; a form field is a field or a file: drop it from the schema, or from fileFields`);
    const given: FileField | null = typeof field === 'string' || Array.isArray(field) ? { type: field as string | readonly string[] } : (field as FileField | null);
    if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new TypeError(`${what}.${name} must be a media type, a list of them, or { type, max }, as in ${EXAMPLE}`);
    const unknown = Object.keys(given).find((key) => key !== 'type' && key !== 'max');
    if (unknown !== undefined) throw new TypeError(`${what}.${name} has "${unknown}"; a file field takes "type" and "max" only`);
    const types = typeof given.type === 'string' ? [given.type] : given.type;
    if (!Array.isArray(types) || types.length === 0) throw new TypeError(`${what}.${name} needs "type": a media type such as 'application/pdf', a range such as 'image/*', or '*/*' for any`);
    const ranges = types.map((type: unknown) => rangeOf(type, `${what}.${name}`));
    const max = given.max ?? 1;
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) throw new TypeError(`${what}.${name}: "max" must be a whole number, at least 1; got ${String(max)}`);
    if (max > files) throw new TypeError(`${what}.${name}: "max" is ${max}, above the endpoint's "files" limit of ${files}, which would refuse the files first; raise "files", or lower "max"`);
    rules.set(name, { types: ranges.map((range) => range.essence), ranges, max });
  }
  return rules;
}

/** A declared media type or range: `type/subtype`, `type/*` or `*\/*`, without parameters. */
function rangeOf(type: unknown, what: string): MediaType {
  const parsed = typeof type === 'string' ? parseMediaType(type) : undefined;
  if (parsed === undefined || parsed.parameters.size > 0 || (parsed.type === '*' && parsed.subtype !== '*')) {
    throw new TypeError(`${what} has ${JSON.stringify(type)}, which is no media type or range; write 'application/pdf', 'image/*' or '*/*', without parameters`);
  }
  return parsed;
}

/**
 * Why a file part may not reach the handler, or undefined when it may: a name not declared (400), a
 * media type the name does not take (415), one file more than the name takes (413); a file without
 * a name is undeclared. `counts` holds
 * the files already taken under each name in this request.
 *
 * @example
 * refusalOf(rules, 'photo', 'text/html', counts); // the 415 RC_UNSUPPORTED_FILE_TYPE
 */
export function refusalOf(rules: FileRules, field: string | undefined, type: string, counts: Map<string, number>): HttpError | undefined {
  // A part with a file name and no field name has none: busboy gives undefined, which no rule has.
  const rule = field === undefined ? undefined : rules.get(field);
  if (field === undefined || rule === undefined) return FILE_FAILURES.undeclared(field ?? '', [...rules.keys()]);
  const media = parseMediaType(type);
  if (media === undefined || !rule.ranges.some((range) => specificity(range, media) >= 0)) return FILE_FAILURES.type(field, type, rule.types);
  const count = (counts.get(field) ?? 0) + 1;
  if (count > rule.max) return FILE_FAILURES.count(field, rule.max);
  counts.set(field, count);
  return undefined;
}
