/**
 * A request with two `Authorization` headers carries two sets of credentials, and each host shows
 * a different one: `node:http` keeps the first in `req.headers` (and drops the other), the Fetch
 * API joins them with ", ". Every adapter shows the API both, and the API refuses the
 * request with a 400 problem. Sent on raw sockets: no HTTP client sends a header twice on request.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeListener } from '../../src/adapters/node.js';
import type { Api } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { fixtureApi, type Fixture } from '../fixture/api.js';
import { expectProblem } from '../helpers/problem.js';
import { ADAPTER_SETUPS, rawRequest } from './raw-http.js';

const SETUPS: Record<string, (api: Api) => Promise<MountedServer>> = {
  ...ADAPTER_SETUPS,
  'node with joinDuplicateHeaders': (api) => listen(http.createServer({ joinDuplicateHeaders: true }, toNodeListener(api))),
};

for (const [name, mount] of Object.entries(SETUPS)) {
  describe(`${name}: a repeated Authorization or Content-Type`, () => {
    let fixture: Fixture;
    let server: MountedServer;

    beforeAll(async () => {
      fixture = fixtureApi();
      server = await mount(fixture.api);
    });
    afterAll(() => server.close());

    it('two Authorization headers (Bearer alice, then Bearer bob) are a 400 problem RC_AMBIGUOUS_CREDENTIALS', async () => {
      const answer = await rawRequest(server, ['GET /users/2 HTTP/1.1', 'Authorization: Bearer alice', 'Authorization: Bearer bob']);
      expectProblem(answer, { status: 400, code: 'RC_AMBIGUOUS_CREDENTIALS' });
    });

    it('two Authorization headers in different cases (authorization, AUTHORIZATION) are a 400 problem too', async () => {
      const answer = await rawRequest(server, ['GET /users/1 HTTP/1.1', 'authorization: Bearer mallory', 'AUTHORIZATION: Bearer alice']);
      expectProblem(answer, { status: 400, code: 'RC_AMBIGUOUS_CREDENTIALS' });
    });

    it('one Authorization header still reads the item with 200', async () => {
      const answer = await rawRequest(server, ['GET /users/1 HTTP/1.1', 'Authorization: Bearer alice']);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com' });
    });

    it('two Content-Type headers (application/json, then text/plain) are refused with 415, and nothing is created', async () => {
      const answer = await rawRequest(
        server,
        ['POST /users HTTP/1.1', 'Authorization: Bearer alice', 'Content-Type: application/json', 'Content-Type: text/plain'],
        '{"name":"Carol","email":"carol@example.com"}',
      );
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' });
      expect(fixture.store.users.has(3)).toBe(false);
    });
  });
}
