import { describe, it, expect } from 'vitest';
import { ConventionError, isConventionError, type NamingFinding } from '../../src/index.js';
import { lintPath, lintPaths } from '../../src/engine.js';
import { checkNaming } from '../../src/naming/naming.js';

const segmentsOf = (findings: readonly NamingFinding[]) => findings.map((finding) => finding.segment);
const rulesOf = (findings: readonly NamingFinding[]) => findings.map((finding) => finding.rule);

describe('lintPath: verb rule', () => {
  it('accepts a plain collection path', () => {
    expect(lintPath('/orders')).toEqual([]);
    expect(lintPath('/users/:id/orders/:orderId')).toEqual([]);
  });

  it('reports a segment that starts with a verb, with message and suggestion', () => {
    expect(lintPath('/getOrders')).toEqual([
      {
        rule: 'verb',
        path: '/getOrders',
        segment: 'getOrders',
        message: '"getOrders" in /getOrders names an action; paths name resources',
        suggestion: 'GET /orders',
      },
    ]);
  });

  it.each([
    ['camelCase', '/getUsers', 'getUsers'],
    ['PascalCase', '/GetUsers', 'GetUsers'],
    ['kebab-case', '/create-order', 'create-order'],
    ['snake_case', '/do_payment', 'do_payment'],
    ['SCREAMING_SNAKE_CASE', '/DELETE_USER', 'DELETE_USER'],
    ['dotted', '/get.users', 'get.users'],
    ['camelCase with a short verb', '/doRefund', 'doRefund'],
    ['a bare verb', '/users/:id/update', 'update'],
  ])('reports a verb in %s (%s)', (_style, path, segment) => {
    const findings = lintPath(path);
    expect(segmentsOf(findings)).toEqual([segment]);
    expect(rulesOf(findings)).toEqual(['verb']);
  });

  it.each([
    '/settings',
    '/address',
    '/addresses',
    '/doctors',
    '/runners',
    '/getaways',
    '/makers',
    '/updates',
    '/removals',
    '/documents',
    '/setups',
    '/search',
    '/posts',
  ])('does not report %s, which only starts with the letters of a verb', (path) => {
    expect(lintPath(path)).toEqual([]);
  });

  it.each(['/load-balancers', '/add-ons', '/read-receipts', '/settings/do-not-disturb', '/change-log'])(
    'does not report the compound noun %s',
    (path) => {
      expect(lintPath(path)).toEqual([]);
    },
  );

  it('splits acronyms from the words around them', () => {
    expect(lintPath('/getHTTPResponse')[0]?.suggestion).toBe('GET /http-responses');
  });
});

describe('lintPath: suggestions', () => {
  it.each([
    ['/createOrder', 'POST /orders'],
    ['/getUsers', 'GET /users'],
    ['/users/:id/doRefund', 'POST /users/:id/refunds'],
    ['/api/v1/delete-user/:id', 'DELETE /api/v1/users/:id'],
    ['/users/:id/update', 'PATCH /users/:id'],
    ['/users/:id/replace-address', 'PUT /users/:id/address'],
    ['/order-items/remove_item/:id', 'DELETE /order-items/items/:id'],
    ['/getOrderLineItems', 'GET /order-line-items'],
  ])('%s -> %s', (path, suggestion) => {
    expect(lintPath(path).map((finding) => finding.suggestion)).toEqual([suggestion]);
  });

  it('rewrites every action segment so the suggested path passes the linter', () => {
    const findings = lintPath('/getUsers/:id/doRefund');
    expect(findings.map((finding) => finding.suggestion)).toEqual([
      'GET /users/:id/refunds',
      'POST /users/:id/refunds',
    ]);
    expect(lintPath('/users/:id/refunds')).toEqual([]);
  });

  it('drops the query string from the suggestion but keeps the path as given', () => {
    const [finding] = lintPath('/getUsers?limit=10');
    expect(finding?.path).toBe('/getUsers?limit=10');
    expect(finding?.suggestion).toBe('GET /users');
  });
});

describe('lintPath: vague rule', () => {
  it.each(['/data1', '/info_2', '/tmp3', '/data', '/misc-info', '/users/:id/stuff', '/Data2'])('reports %s', (path) => {
    const findings = lintPath(path);
    expect(rulesOf(findings)).toEqual(['vague']);
  });

  it.each(['/orders', '/users', '/items', '/metadata', '/user-data', '/api/v1', '/2024'])('accepts %s', (path) => {
    expect(lintPath(path)).toEqual([]);
  });

  it('asks for a name that says what the segment holds', () => {
    expect(lintPath('/data1')).toEqual([
      {
        rule: 'vague',
        path: '/data1',
        segment: 'data1',
        message: '"data1" in /data1 is a vague name; paths say which data they hold',
        suggestion: 'rename "data1" to a noun that says what it holds, such as /orders',
      },
    ]);
  });

  it('reports a segment that is both an action and vague once, as an action', () => {
    const findings = lintPath('/getData');
    expect(rulesOf(findings)).toEqual(['verb']);
  });

  it('reports each offending segment of a path', () => {
    expect(segmentsOf(lintPath('/data1/:id/createOrder'))).toEqual(['data1', 'createOrder']);
  });

  it('reports a segment repeated in one path once', () => {
    expect(segmentsOf(lintPath('/tmp/:id/tmp'))).toEqual(['tmp']);
  });
});

describe('lintPath: what is not linted', () => {
  it.each(['/users/:getUser', '/users/{data1}', '/files/*', '/files/*getPath'])('skips params in %s', (path) => {
    expect(lintPath(path)).toEqual([]);
  });

  it('ignores the query string', () => {
    expect(lintPath('/orders?getAll=1&data=2')).toEqual([]);
    expect(lintPath('/orders#getAll')).toEqual([]);
  });

  it('ignores empty segments', () => {
    expect(lintPath('')).toEqual([]);
    expect(lintPath('/')).toEqual([]);
    expect(lintPath('//orders//')).toEqual([]);
  });
});

describe('lintPath: allow list', () => {
  it('allows a segment wherever it appears, case-insensitively', () => {
    expect(lintPath('/users/:id/doRefund', { allow: ['dorefund'] })).toEqual([]);
    expect(segmentsOf(lintPath('/getUsers/:id/doRefund', { allow: ['DoRefund'] }))).toEqual(['getUsers']);
  });

  it('allows a whole path, but not other paths with the same segments', () => {
    expect(lintPath('/legacy/getUsers', { allow: ['/legacy/getUsers'] })).toEqual([]);
    expect(lintPath('/legacy/getUsers/', { allow: ['/legacy/getUsers'] })).toEqual([]);
    expect(segmentsOf(lintPath('/v2/getUsers', { allow: ['/legacy/getUsers'] }))).toEqual(['getUsers']);
  });

  it('does not treat a path entry as a segment name', () => {
    expect(segmentsOf(lintPath('/data1', { allow: ['/data'] }))).toEqual(['data1']);
  });
});

describe('lintPaths', () => {
  it('lints every path in order', () => {
    const findings = lintPaths(['/orders', '/getUsers', '/users/1/doRefund', '/data1']);
    expect(findings.map((finding) => [finding.path, finding.segment, finding.rule])).toEqual([
      ['/getUsers', 'getUsers', 'verb'],
      ['/users/1/doRefund', 'doRefund', 'verb'],
      ['/data1', 'data1', 'vague'],
    ]);
  });

  it('accepts any iterable and lints a repeated path once', () => {
    const paths = new Map([
      ['GET /getUsers', '/getUsers'],
      ['POST /getUsers', '/getUsers'],
    ]).values();
    expect(segmentsOf(lintPaths(paths))).toEqual(['getUsers']);
  });

  it('applies the allow list to every path', () => {
    expect(lintPaths(['/getUsers', '/data1'], { allow: ['getUsers', '/data1'] })).toEqual([]);
  });
});

describe('checkNaming', () => {
  const paths = ['/orders', '/createOrder', '/data1'];

  it("'error' throws a ConventionError that lists every finding and its suggestion", () => {
    let thrown: unknown;
    try {
      checkNaming(paths, 'error');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConventionError);
    const error = thrown as ConventionError;
    expect(error.name).toBe('ConventionError');
    expect(segmentsOf(error.findings)).toEqual(['createOrder', 'data1']);
    const lines = error.message.split('\n');
    for (const finding of error.findings) {
      expect(lines.some((line) => line.includes(finding.message) && line.includes(finding.suggestion))).toBe(true);
    }
    expect(error.message).toContain('POST /orders');
    expect(error.message).toContain("naming: 'warn'");
    expect(error.message).toContain("naming: 'off'");
    expect(error.message).toContain('namingAllow');
  });

  it("'error' returns [] when every path passes", () => {
    expect(checkNaming(['/orders', '/users/:id'], 'error')).toEqual([]);
  });

  it("'warn' calls warn once with the error's message and returns the findings", () => {
    const messages: string[] = [];
    const findings = checkNaming(paths, 'warn', { warn: (message) => messages.push(message) });
    expect(segmentsOf(findings)).toEqual(['createOrder', 'data1']);
    expect(messages).toEqual([new ConventionError(findings).message]);
  });

  it("'warn' stays silent when every path passes", () => {
    const messages: string[] = [];
    expect(checkNaming(['/orders'], 'warn', { warn: (message) => messages.push(message) })).toEqual([]);
    expect(messages).toEqual([]);
  });

  it("'off' skips the check", () => {
    const messages: string[] = [];
    expect(checkNaming(paths, 'off', { warn: (message) => messages.push(message) })).toEqual([]);
    expect(messages).toEqual([]);
  });

  it('passes the allow list through', () => {
    expect(checkNaming(paths, 'error', { allow: ['createOrder', 'data1'] })).toEqual([]);
  });

  it('rejects an unknown mode with a sentence that says what to pass', () => {
    expect(() => checkNaming(paths, 'warning' as never)).toThrow(/naming must be 'error', 'warn' or 'off'; got "warning"/);
  });
});

describe('isConventionError', () => {
  it('recognises a ConventionError', () => {
    expect(isConventionError(new ConventionError(lintPath('/getUsers')))).toBe(true);
  });

  it('recognises an error branded by another copy of the library', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('restcanon.ConventionError')]: true });
    expect(isConventionError(foreign)).toBe(true);
  });

  it.each([new Error('x'), null, undefined, 'ConventionError', { name: 'ConventionError', findings: [] }])(
    'rejects %s',
    (value) => {
      expect(isConventionError(value)).toBe(false);
    },
  );
});
