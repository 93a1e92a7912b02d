/**
 * Plain-text tables for the terminal: columns padded to their widest cell, long cells cut with an
 * ellipsis so that a row stays on one line.
 */

/**
 * Renders rows under a header, each column as wide as its widest cell (at most `maxWidth`).
 *
 * @example
 * renderTable(['rule', 'failed'], [['not-found', '1']]);
 * // 'rule       failed\n---------  ------\nnot-found  1'
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], maxWidth = 80): string {
  const cut = (cell: string): string => (cell.length > maxWidth ? `${cell.slice(0, maxWidth - 1)}…` : cell);
  const cells = [header, ...rows].map((row) => row.map((cell) => cut(cell.replace(/\s+/g, ' '))));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]): string => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(cells[0]!), line(widths.map((width) => '-'.repeat(width))), ...cells.slice(1).map(line)].join('\n');
}
