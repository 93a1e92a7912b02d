/**
 * The `{name}` parameters of an OpenAPI path template, found by `indexOf`: `/\{[^}]*\}/` takes
 * quadratic time on a long run of `{` without a `}`, and a template comes from a document the CLI
 * reads, or from a server it probes.
 */

/**
 * The first `{name}` in a text, where a `}` closes it: its start, its end (after the `}`) and the
 * name between the braces.
 *
 * @example
 * paramIn('{id}.json'); // { start: 0, end: 4, name: 'id' }
 * paramIn('{id'); // undefined
 */
export function paramIn(text: string, from = 0): { start: number; end: number; name: string } | undefined {
  const start = text.indexOf('{', from);
  if (start === -1) return undefined;
  // The first `{` with a `}` after it opens the parameter; when this one has none, no later one has.
  const close = text.indexOf('}', start + 1);
  return close === -1 ? undefined : { start, end: close + 1, name: text.slice(start + 1, close) };
}

/**
 * The text with every `{name}` replaced by one value.
 *
 * @example
 * replaceParams('/users/{userId}/orders/{id}', 'x'); // '/users/x/orders/x'
 */
export function replaceParams(text: string, value: string): string {
  let result = '';
  let from = 0;
  for (let param = paramIn(text); param !== undefined; param = paramIn(text, from)) {
    result += text.slice(from, param.start) + value;
    from = param.end;
  }
  return from === 0 ? text : result + text.slice(from);
}
