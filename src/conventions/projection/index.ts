import type { Endpoint } from '../../core/endpoint.js';
import type { Convention } from '../../core/seam.js';
import { compileProjection, type Projection } from '../../core/projection.js';

/**
 * Response projection as a convention: what a response schema hides is hidden in every format. A
 * result is cut down to what the schema declares before JSON, text, XML or a compiled serializer sees
 * it; a list's items one by one. Every endpoint that declares a `response` uses it.
 */

/**
 * The `projection` convention: what `response` of an endpoint, and `item` of a collection, ask for.
 *
 * @example
 * const createApi = apiWith([projection]);
 */
export const projection: Convention = {
  name: 'projection',
  rank: 60,
  endpoint(endpoint) {
    const project = projectionOf(endpoint);
    return project === undefined ? undefined : { project };
  },
};

function projectionOf(endpoint: Endpoint): Projection | undefined {
  const { response } = endpoint;
  if (response === undefined) return undefined;
  let project: Projection;
  try {
    project = compileProjection(response.schema);
  } catch (error) {
    throw new TypeError(`${endpoint.method} ${endpoint.path}: the response schema cannot be used: ${String((error as Error)?.message ?? error)}`, { cause: error });
  }
  if (!response.array) return project;
  // A page's items one by one, and its links as they are.
  if (response.page === true) return (value) => ({ ...(value as { items: unknown[] }), items: (value as { items: unknown[] }).items.map(project) });
  // A list's items one by one; anything but an array is a masked 500, never a body sent as it is.
  return (value) => {
    if (!Array.isArray(value)) throw new TypeError(`The result of ${endpoint.method} ${endpoint.path} is not the array its item schema needs`);
    return value.map(project);
  };
}
