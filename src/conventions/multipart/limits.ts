/**
 * The limits of a multipart body: the module's options, and what an endpoint declares under
 * `conventions: { multipart: {...} }` over them.
 */

/**
 * Limits of the parts of a `multipart/form-data` body. The body as a whole stays within the
 * endpoint's `bodyLimit`.
 *
 * @example
 * const limits: MultipartLimits = { fileSize: 50 * 1024 * 1024, files: 1 };
 */
export interface MultipartLimits {
  /** The largest file, in bytes (413 `RC_FILE_TOO_LARGE`). Defaults to the endpoint's `bodyLimit`. */
  fileSize?: number;
  /** The most files (413 `RC_TOO_MANY_FILES`). Defaults to 10. */
  files?: number;
  /** The most fields that are not files (413 `RC_TOO_MANY_FIELDS`). Defaults to 100. */
  fields?: number;
  /** The longest value of a field, in bytes (413 `RC_FIELD_TOO_LARGE`). Defaults to 64 KiB. */
  fieldSize?: number;
  /** The most parts, files and fields together (413 `RC_TOO_MANY_PARTS`). Defaults to 1000. */
  parts?: number;
  /** The most header lines of one part (400 `RC_TOO_MANY_PART_HEADERS`). Defaults to 16. */
  headerPairs?: number;
}

/** The limits a body is read with, every one given. */
export type PartLimits = Required<MultipartLimits>;

const DEFAULTS: Omit<PartLimits, 'fileSize'> = { files: 10, fields: 100, fieldSize: 64 * 1024, parts: 1000, headerPairs: 16 };

const NAMES = ['fileSize', 'files', 'fields', 'fieldSize', 'parts', 'headerPairs'] as const;

/**
 * Checks limits given to `multipart()` or declared by an endpoint: an object of whole numbers, at
 * least 0 (`headerPairs` at least 1), of known names.
 *
 * @example
 * checkLimits({ files: 1 }, 'multipart()'); // passes
 * checkLimits({ file: 1 }, 'multipart()'); // throws
 */
export function checkLimits(value: unknown, what: string): MultipartLimits {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`${what} must be an object of limits, such as { fileSize: 10 * 1024 * 1024, files: 1 }`);
  for (const [name, limit] of Object.entries(value)) {
    if (name === 'fileFields') throw new TypeError(`${what} has "fileFields", which belong to the endpoint that takes the files; declare them in its conventions: { multipart: { fileFields: {...} } }`);
    if (!(NAMES as readonly string[]).includes(name)) throw new TypeError(`${what} has "${name}", which is no limit of a multipart body; use ${NAMES.join(', ')}`);
    const least = name === 'headerPairs' ? 1 : 0;
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < least) throw new TypeError(`${what}: "${name}" must be a whole number, at least ${least}; got ${String(limit)}`);
  }
  return value as MultipartLimits;
}

/**
 * The limits of one endpoint: what it declares, over the module's options, over the defaults.
 *
 * @example
 * limitsOf({ files: 1 }, {}, 1024 * 1024); // { files: 1, fileSize: 1048576, fields: 100, ... }
 */
export function limitsOf(declared: MultipartLimits, options: MultipartLimits, bodyLimit: number): PartLimits {
  return { ...DEFAULTS, fileSize: bodyLimit, ...options, ...declared };
}
