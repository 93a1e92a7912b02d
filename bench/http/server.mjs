/**
 * Runs one server of servers.mjs in this process, on 127.0.0.1 and a free port, and prints one JSON
 * line `{ port, pid }` once it listens. SIGTERM closes it and exits (so that `--cpu-prof` writes its
 * profile). See bench/lib/serve-one.mjs.
 *
 *   node bench/http/server.mjs <server name>
 */
import { serveOne } from '../lib/serve-one.mjs';
import { serverNamed } from './servers.mjs';

await serveOne(serverNamed, 'node bench/http/server.mjs <server name>');
