#!/usr/bin/env node
/**
 * The `restcanon` command. It runs the CLI that `npm run build` writes to dist/cli/; in a clone of the
 * repository that has not been built yet it says so, rather than building anything itself.
 */
let cli;
try {
  cli = await import('../dist/cli/restcanon.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/restcanon.js')) throw error;
  process.stderr.write('restcanon: the command is not built in this checkout: run `npm run build` first (npm start and npm test build too).\n');
  process.exit(2);
}
process.exitCode = await cli.run(process.argv.slice(2));
