import type { Endpoint } from '../../core/endpoint.js';
import type { OpenApiPart } from '../../openapi/part.js';
import type { JsonSchema } from '../../openapi/schemas.js';
import type { IdempotencyRules, Mode } from './options.js';

/**
 * The part of idempotency keys in the OpenAPI document: the `Idempotency-Key` header an operation
 * takes or needs, how long its answer is kept (the draft asks a server to publish it), and the header
 * of a replayed answer. Its 400, 409, 422 and 503 come from the outcomes of its steps.
 */

/**
 * A retention in words: whole days, hours, minutes or seconds where it is one, else milliseconds.
 *
 * @example
 * retentionText(86_400_000); // '24 hours'
 */
export function retentionText(ms: number): string {
  for (const [unit, size] of [['hours', 3_600_000], ['minutes', 60_000], ['seconds', 1000]] as const) {
    if (ms % size === 0) return `${ms / size} ${ms === size ? unit.slice(0, -1) : unit}`;
  }
  return `${ms} milliseconds`;
}

/**
 * The part, reading what each endpoint was found to ask for when its API was built.
 *
 * @example
 * const part = idempotencyPart(modes, rules);
 */
export function idempotencyPart(modes: WeakMap<Endpoint, Mode>, rules: IdempotencyRules): OpenApiPart {
  const kept = retentionText(rules.retention);
  return {
    parameters(endpoint): JsonSchema[] {
      const mode = modes.get(endpoint);
      if (mode === undefined || mode === false) return [];
      return [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: mode === 'required',
          description:
            `A key of the client's own (a UUID) for this one request, as a quoted string (RFC 8941), at most ${rules.maxKeyLength} characters. ` +
            `Sent again with the same request by the same caller, the first answer comes back instead of a second run, for ${kept}; ` +
            'with another request it is a 422, and while the first still runs a 409.',
          schema: { type: 'string', maxLength: rules.maxKeyLength * 2 + 2 },
          example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
        },
      ];
    },
    headers(endpoint): JsonSchema | undefined {
      const mode = modes.get(endpoint);
      if (mode === undefined || mode === false) return undefined;
      return { 'Idempotent-Replayed': { description: 'true when this is the kept answer of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } } };
    },
  };
}
