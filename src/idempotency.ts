/**
 * `restcanon/idempotency`: idempotency keys (draft-ietf-httpapi-idempotency-key-header) as a module
 * for `createApi({ use })`, kept in a store that every instance of the API shares.
 */
export { idempotency, IDEMPOTENCY_PROBLEMS, type IdempotencyOptions } from './conventions/idempotency/index.js';
