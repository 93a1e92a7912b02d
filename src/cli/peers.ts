/**
 * The CLI's optional peer dependencies, loaded only when a command needs them: `yaml` reads documents
 * (JSON or YAML, with the line of every node) and `@apidevtools/json-schema-ref-parser` resolves their
 * `$ref`s. The library never imports this file, so an API that only uses restcanon pays for neither.
 */
import { CliError } from './errors.js';

type Yaml = typeof import('yaml');
type RefParser = typeof import('@apidevtools/json-schema-ref-parser');

const INSTALL = 'npm install --save-dev yaml @apidevtools/json-schema-ref-parser';

function missing(name: string, error: unknown): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
  return new CliError(
    `Reading an OpenAPI document needs the package ${name}, an optional peer dependency of restcanon. Install it beside restcanon (${INSTALL}), or run npx -p restcanon -p yaml -p @apidevtools/json-schema-ref-parser restcanon ...`,
  );
}

/**
 * The `yaml` package, or a {@link CliError} that says how to install it.
 *
 * @example
 * const { parseDocument } = await loadYaml();
 */
export async function loadYaml(): Promise<Yaml> {
  try {
    return await import('yaml');
  } catch (error) {
    throw missing('yaml', error);
  }
}

/**
 * The `@apidevtools/json-schema-ref-parser` package, or a {@link CliError} that says how to install it.
 *
 * @example
 * const { $RefParser } = await loadRefParser();
 */
export async function loadRefParser(): Promise<RefParser> {
  try {
    return await import('@apidevtools/json-schema-ref-parser');
  } catch (error) {
    throw missing('@apidevtools/json-schema-ref-parser', error);
  }
}
