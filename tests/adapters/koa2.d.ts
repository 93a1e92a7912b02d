// `koa2` is Koa 2 installed under an npm alias; its API is typed closely enough by @types/koa.
declare module 'koa2' {
  import Koa from 'koa';
  export default Koa;
}
