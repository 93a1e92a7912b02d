import { describe, expect, it } from 'vitest';
import { createApi, endpoint } from '../../src/index.js';
import { MOUNTS } from './mounts.js';

const api = createApi({ endpoints: [endpoint('GET', '/ping', { public: true, handle: () => ({ pong: true }) })] });

describe('every mount serves the API', () => {
  for (const [name, mount] of Object.entries(MOUNTS)) {
    it(`${name}: GET /ping answers 200 with the result`, async () => {
      const server = await mount(api, {});
      try {
        const response = await fetch(`${server.baseUrl}/ping`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ pong: true });
      } finally {
        await server.close();
      }
    });
  }
});
