/**
 * restcanon/multipart: `multipart/form-data` request bodies (uploads), fields checked before the
 * handler and files streamed to it.
 */
export { multipart, type FileField, type FileFields, type MultipartDeclaration, type MultipartLimits, type MultipartOptions } from './conventions/multipart/index.js';
export type { UploadedFile } from './core/uploads.js';
