/**
 * Listening on 127.0.0.1 and a free port, for the servers of the http and peers benchmarks.
 */

/** @typedef {{ port: number, close: () => Promise<void> }} Listening */

export const HOST = '127.0.0.1';

/** @param {import('node:http').Server} server @returns {Promise<Listening>} */
export function listening(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve(listeningOn(server)));
  });
}

/** A server that already listens. @param {import('node:http').Server} server @returns {Listening} */
export function listeningOn(server) {
  return {
    port: /** @type {import('node:net').AddressInfo} */ (server.address()).port,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/**
 * A Fastify app, set up by `setup` (which may return a promise), listening.
 * @param {(app: any) => unknown} setup
 * @returns {Promise<Listening>}
 */
export async function listenFastify(setup) {
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  await setup(app);
  await app.listen({ port: 0, host: HOST });
  return { port: app.server.address().port, close: () => app.close() };
}
