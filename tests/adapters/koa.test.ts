import mount from 'koa-mount';
import Koa from 'koa';
import Koa2 from 'koa2';
import { toKoa } from '../../src/adapters/koa.js';
import { listening, runAdapterSuite } from './conformance.js';

for (const [name, Application] of [['koa 3', Koa], ['koa 2', Koa2]] as const) {
  runAdapterSuite(
    name,
    (api, { prefix }) => {
      const app = new Application();
      const middleware = toKoa(api, { fallthrough: false });
      app.use(prefix === undefined ? middleware : mount(prefix, middleware));
      return listening(app.listen(0, '127.0.0.1'));
    },
    { prefix: 'mount' },
  );
}
