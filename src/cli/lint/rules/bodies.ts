/**
 * `problem-body` and `success-not-error`: an error is described as a problem (RFC 9457,
 * `application/problem+json`), and a success is never described as an error.
 */
import { isRef } from '../pointer.js';
import { mediaTypesOf, type OperationView } from '../model.js';
import type { LintRule } from './rule.js';

const PROBLEM = /^application\/problem\+(json|xml)$/;
const ERROR_NAME = /(error|problem|fault|failure)/i;
const ERROR_WORDING = /\b(errors?|fail(s|ed|ure)?|invalid|not found|unauthori[sz]ed|forbidden|denied)\b/i;
const ERROR_KEYS = new Set(['error', 'errors']);
const ERROR_COMPANIONS = new Set(['error', 'errors', 'message', 'code', 'status', 'success', 'detail', 'title', 'type']);

function hasBody(operation: OperationView): boolean {
  return operation.method !== 'HEAD' && operation.method !== 'OPTIONS';
}

/**
 * Every 4xx and 5xx response documents a problem body.
 *
 * @example
 * problemBody.id; // 'problem-body'
 */
export const problemBody: LintRule = {
  id: 'problem-body',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations.filter(hasBody)) {
      for (const entry of operation.responses) {
        if (!/^[45](\d\d|XX)$/i.test(entry.code)) continue;
        checked += 1;
        const types = mediaTypesOf(entry.response);
        const where = `${operation.method} ${operation.path} documents ${entry.code}`;
        if (types.length === 0) {
          report(entry.keys, `${where} without a body: describe its problem body as application/problem+json (RFC 9457: type, title, status, detail)`);
        } else if (!types.some((type) => PROBLEM.test(type))) {
          report(entry.keys, `${where} as ${types.join(', ')}: errors are problem bodies, application/problem+json (RFC 9457: type, title, status, detail)`);
        }
      }
    }
    return checked;
  },
};

/** Why a schema describes an error, or undefined. */
function errorSchema(raw: unknown, schema: unknown): string | undefined {
  if (isRef(raw)) {
    const name = raw.$ref.split('/').at(-1) ?? '';
    if (ERROR_NAME.test(name)) return `its schema is ${name}`;
  }
  if (typeof schema !== 'object' || schema === null) return undefined;
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const keys = Object.keys(properties);
  if (keys.some((key) => ERROR_KEYS.has(key)) && keys.every((key) => ERROR_COMPANIONS.has(key))) return `its schema holds only ${keys.join(', ')}`;
  return undefined;
}

/**
 * No 2xx response is described as an error.
 *
 * @example
 * successNotError.id; // 'success-not-error'
 */
export const successNotError: LintRule = {
  id: 'success-not-error',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations) {
      for (const entry of operation.responses) {
        if (!/^2(\d\d|XX)$/i.test(entry.code)) continue;
        checked += 1;
        const where = `${operation.method} ${operation.path} describes its ${entry.code}`;
        const fix = `an error must not be reported with a 2xx: give it its own error status and a problem body`;
        const types = mediaTypesOf(entry.response);
        const problemType = types.find((type) => PROBLEM.test(type));
        if (problemType !== undefined) {
          report(entry.keys, `${where} as ${problemType}: ${fix}`);
          continue;
        }
        const content = entry.response.content as Record<string, { schema?: unknown }> | undefined;
        const reason = Object.values(content ?? {})
          .map((media) => errorSchema(media?.schema, model.deref(media?.schema)))
          .find((found) => found !== undefined);
        if (reason !== undefined) {
          report(entry.keys, `${where} as an error (${reason}): ${fix}`);
          continue;
        }
        const description = typeof entry.response.description === 'string' ? entry.response.description : '';
        const wording = ERROR_WORDING.exec(description);
        if (wording !== null) report(entry.keys, `${where} in the words of an error ("${wording[0]}" in "${description}"): ${fix}`);
      }
    }
    return checked;
  },
};
