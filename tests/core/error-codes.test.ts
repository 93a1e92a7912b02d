import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/index.js';

const readme = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
const documented = [...readme.matchAll(/^\| `(RC_[A-Z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1]!, Number(match[2])] as const);

describe('the error code registry', () => {
  it('has unique, prefixed codes', () => {
    const codes = Object.values(ERROR_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^RC_[A-Z_]+$/);
  });

  it('is documented in docs/errors.md, code for code', () => {
    expect(documented.map(([code]) => code).sort()).toEqual(Object.values(ERROR_CODES).sort());
  });
});
