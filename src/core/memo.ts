/**
 * Looks a key up in a bounded memo, computing and storing its value the first time (an undefined
 * value is stored too). The memo starts over at 256 entries, so keys a client chooses cannot grow it
 * without end.
 *
 * @example
 * remember(MEDIA_TYPES, 'application/json', parseMediaType, undefined);
 */
export function remember<Key, Value, Extra>(memo: Map<Key, Value>, key: Key, compute: (key: Key, extra: Extra) => Value, extra: Extra): Value {
  let value = memo.get(key);
  if (value === undefined && !memo.has(key)) {
    if (memo.size >= 256) memo.clear();
    memo.set(key, (value = compute(key, extra)));
  }
  return value as Value;
}
