import type { Endpoint } from '../../core/endpoint.js';
import type { OpenApiPart } from '../../openapi/part.js';
import type { JsonSchema } from '../../openapi/schemas.js';
import { policiesOf, policyField, type NamedPolicy } from './policies.js';

/**
 * The part of a rate limit in the OpenAPI document: the policies of each operation they cover (in
 * `x-rate-limit` and its description), and the `RateLimit-Policy` and `RateLimit` headers on every
 * answer. The 429 comes from the outcomes of the module's steps.
 */

/**
 * The OpenAPI part of a rate limit of these API-wide policies.
 *
 * @example
 * rateLimitPart([{ name: 'default', quota: 100, window: 60, cost: 1 }]).operation!(endpoint, operation);
 */
export function rateLimitPart(api: readonly NamedPolicy[]): OpenApiPart {
  return {
    operation(endpoint: Endpoint, operation: JsonSchema): void {
      const policies = policiesOf(api, endpoint.conventions?.rateLimit, `${endpoint.method} ${endpoint.path}`);
      if (policies.length === 0) return;
      const field = policyField(policies);
      operation['x-rate-limit'] = policies.map(({ name, quota, window, cost }) => ({ name, quota, window, cost }));
      const said = `Rate limited: ${policies.map(({ name, quota, window, cost }) => `"${name}" allows ${quota} units per ${window} seconds${cost === 1 ? '' : `, ${cost} a request`}`).join('; ')}.`;
      operation.description = operation.description === undefined ? said : `${String(operation.description)} ${said}`;
      const headers: JsonSchema = {
        'RateLimit-Policy': { description: 'The quota policies of this operation (draft-ietf-httpapi-ratelimit-headers).', schema: { type: 'string', const: field } },
        RateLimit: { description: 'Per policy, the units left (r) and the seconds until its window ends (t), such as "default";r=42;t=17.', schema: { type: 'string' } },
      };
      for (const response of Object.values(operation.responses as Record<string, JsonSchema>)) response.headers = { ...(response.headers as JsonSchema | undefined), ...headers };
    },
  };
}
