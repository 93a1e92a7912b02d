/**
 * The one failure the CLI reports as a sentence rather than a stack: input it cannot use (an unreadable
 * or invalid document, a server that does not answer, a wrong option). It exits with 2, apart from the
 * 1 that findings give.
 */

/**
 * An input the command cannot work with; `message` says what is wrong and what to do.
 *
 * @example
 * throw new CliError('openapi.yaml: no such file');
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode = 2;
}

/**
 * Whether a value is a {@link CliError}.
 *
 * @example
 * isCliError(new CliError('no such file')); // true
 */
export function isCliError(value: unknown): value is CliError {
  return value instanceof CliError;
}
