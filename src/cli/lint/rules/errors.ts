/**
 * `bad-request`, `unauthorized`, `forbidden`, `not-found` and `server-error`: the errors an operation
 * can reach are documented, each with the status of the outcome table, and a 401 with the
 * `WWW-Authenticate` header that RFC 9110 requires of it.
 */
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { headerOf, isItemPath, responseFor, segmentsOf, type OperationView } from '../model.js';
import type { LintRule } from './rule.js';

/** OPTIONS lists a path's methods: the router answers it, so it reaches none of these errors. */
function answersErrors(operation: OperationView): boolean {
  return operation.method !== 'OPTIONS' && operation.method !== 'TRACE';
}

function documents(operation: OperationView, status: number): boolean {
  return responseFor(operation, status) !== undefined;
}

function name(operation: OperationView): string {
  return `${operation.method} ${operation.path}`;
}

/**
 * An operation that takes a body or parameters documents 400.
 *
 * @example
 * badRequest.id; // 'bad-request'
 */
export const badRequest: LintRule = {
  id: 'bad-request',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations.filter(answersErrors)) {
      const input = [operation.requestBody === undefined ? [] : ['a body'], operation.parameters.length === 0 ? [] : ['parameters']].flat();
      if (input.length === 0) continue;
      checked += 1;
      if (documents(operation, STATUS.badRequest)) continue;
      const instead = operation.responses.some((entry) => entry.code === String(STATUS.unprocessable)) ? ` It documents ${STATUS.unprocessable}: the conventions answer invalid input with ${STATUS.badRequest}.` : '';
      report([...operation.keys, 'responses'], `${name(operation)} takes ${input.join(' and ')} but documents no ${STATUS.badRequest}: document ${STATUS.badRequest} Bad Request for invalid input.${instead}`);
    }
    return checked;
  },
};

/**
 * An operation that needs credentials documents 401, and every 401 declares `WWW-Authenticate`.
 *
 * @example
 * unauthorized.id; // 'unauthorized'
 */
export const unauthorized: LintRule = {
  id: 'unauthorized',
  check(model, report) {
    let checked = 0;
    const status = STATUS.unauthorized;
    for (const operation of model.operations.filter(answersErrors)) {
      const response = operation.responses.find((entry) => entry.code === String(status));
      if (operation.security === 'required') {
        checked += 1;
        if (response === undefined && !documents(operation, status)) {
          report([...operation.keys, 'responses'], `${name(operation)} needs credentials but documents no ${status}: document ${status} Unauthorized, with a WWW-Authenticate header`);
        }
      }
      if (response !== undefined) {
        checked += 1;
        if (headerOf(response.response, 'WWW-Authenticate', model.deref) === undefined) {
          report(response.keys, `${name(operation)} documents ${status} without a WWW-Authenticate header: declare it (RFC 9110 requires it on every ${status}); it names the scheme, such as Bearer realm="api"`);
        }
      }
    }
    return checked;
  },
};

/**
 * An operation on an item that needs credentials documents 403: the item may be someone else's.
 *
 * @example
 * forbidden.id; // 'forbidden'
 */
export const forbidden: LintRule = {
  id: 'forbidden',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations.filter(answersErrors)) {
      if (operation.security !== 'required' || !isItemPath(operation.path)) continue;
      checked += 1;
      if (!documents(operation, STATUS.forbidden)) {
        report([...operation.keys, 'responses'], `${name(operation)} needs credentials and names one item, which may be another caller's, but documents no ${STATUS.forbidden}: document ${STATUS.forbidden} Forbidden (or answer ${STATUS.notFound} by policy, and say so)`);
      }
    }
    return checked;
  },
};

/**
 * An operation on a path with a parameter documents 404.
 *
 * @example
 * notFound.id; // 'not-found'
 */
export const notFound: LintRule = {
  id: 'not-found',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations.filter(answersErrors)) {
      if (!segmentsOf(operation.path).some((segment) => segment.param)) continue;
      checked += 1;
      if (!documents(operation, STATUS.notFound)) {
        report([...operation.keys, 'responses'], `${name(operation)} names a resource by a path parameter but documents no ${STATUS.notFound}: document ${STATUS.notFound} Not Found for an unknown one`);
      }
    }
    return checked;
  },
};

/**
 * Every operation documents 500 (or 5XX, or a `default` response).
 *
 * @example
 * serverError.id; // 'server-error'
 */
export const serverError: LintRule = {
  id: 'server-error',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations.filter(answersErrors)) {
      checked += 1;
      if (documents(operation, STATUS.internalError) || operation.responses.some((entry) => entry.code === 'default')) continue;
      report([...operation.keys, 'responses'], `${name(operation)} documents no ${STATUS.internalError}: document ${STATUS.internalError} Internal Server Error (or 5XX), which any operation can answer`);
    }
    return checked;
  },
};
