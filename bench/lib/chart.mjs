/**
 * A horizontal bar chart as a standalone SVG file, written by hand: the benchmarks page shows it, and
 * no charting dependency is needed for a few rows of bars.
 */

const WIDTH = 760;
const LABEL_WIDTH = 190;
/** Room right of the longest bar for its value. */
const VALUE_WIDTH = 56;
const BAR_HEIGHT = 11;
const BAR_GAP = 2;
const ROW_GAP = 7;
const GROUP_HEADER = 18;
const TOP = 58;
const FONT = "font-family='-apple-system, Segoe UI, Helvetica, Arial, sans-serif'";

/** @param {string} text */
const escapeXml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&apos;');

/**
 * A round axis maximum at or above `value` (1, 2, 2.5, 4 or 5 times a power of ten), so that its
 * five ticks are round numbers too.
 * @param {number} value
 */
function niceMaximum(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 4, 5, 10].map((step) => step * power).find((candidate) => candidate >= value) ?? 10 * power;
}

/**
 * Renders grouped horizontal bars: one group per heading, one row per label, one bar per series.
 *
 * @example
 * const svg = barChart({
 *   title: 'Server CPU per request',
 *   unit: 'µs',
 *   series: [{ name: '-p 10', color: '#4c78a8' }],
 *   groups: [{ name: 'node', rows: [{ label: 'node:http', values: [30.1] }] }],
 * });
 *
 * @param {{ title: string, subtitle?: string, unit: string, series: { name: string, color: string }[], groups: { name: string, rows: { label: string, values: number[] }[] }[] }} chart
 * @returns {string} the SVG document
 */
export function barChart({ title, subtitle, unit, series, groups }) {
  const values = groups.flatMap((group) => group.rows.flatMap((row) => row.values)).filter(Number.isFinite);
  const maximum = niceMaximum(Math.max(1e-9, ...values));
  const plotWidth = WIDTH - LABEL_WIDTH - VALUE_WIDTH - 10;
  const x = (value) => LABEL_WIDTH + (value / maximum) * plotWidth;
  const rowHeight = series.length * (BAR_HEIGHT + BAR_GAP) - BAR_GAP + ROW_GAP;

  const parts = [];
  let y = TOP;
  for (const group of groups) {
    parts.push(`<text x='8' y='${y + 12}' font-size='12' font-weight='600' fill='#222'>${escapeXml(group.name)}</text>`);
    y += GROUP_HEADER;
    for (const row of group.rows) {
      parts.push(`<text x='${LABEL_WIDTH - 8}' y='${y + (rowHeight - ROW_GAP) / 2 + 4}' font-size='12' text-anchor='end' fill='#333'>${escapeXml(row.label)}</text>`);
      series.forEach((one, index) => {
        const value = row.values[index];
        const top = y + index * (BAR_HEIGHT + BAR_GAP);
        if (!Number.isFinite(value)) {
          parts.push(`<text x='${LABEL_WIDTH + 4}' y='${top + BAR_HEIGHT - 2}' font-size='10' fill='#777'>n/a</text>`);
          return;
        }
        const width = Math.max(1, x(value) - LABEL_WIDTH);
        parts.push(`<rect x='${LABEL_WIDTH}' y='${top}' width='${width.toFixed(1)}' height='${BAR_HEIGHT}' fill='${one.color}'><title>${escapeXml(`${row.label}, ${one.name}: ${value.toFixed(1)} ${unit}`)}</title></rect>`);
        parts.push(`<text x='${(LABEL_WIDTH + width + 4).toFixed(1)}' y='${top + BAR_HEIGHT - 2}' font-size='10' fill='#333'>${value.toFixed(1)}</text>`);
      });
      y += rowHeight;
    }
    y += 4;
  }
  const bottom = y;

  const ticks = [];
  for (let step = 0; step <= 5; step++) {
    const value = (maximum / 5) * step;
    const tickX = x(value).toFixed(1);
    ticks.push(`<line x1='${tickX}' y1='${TOP - 4}' x2='${tickX}' y2='${bottom}' stroke='#e3e3e3'/>`);
    ticks.push(`<text x='${tickX}' y='${bottom + 14}' font-size='10' text-anchor='middle' fill='#555'>${Number(value.toPrecision(3))}</text>`);
  }
  let legendX = LABEL_WIDTH;
  const legend = series.map((one) => {
    const entry = `<rect x='${legendX}' y='34' width='12' height='10' fill='${one.color}'/><text x='${legendX + 17}' y='43' font-size='11' fill='#333'>${escapeXml(one.name)}</text>`;
    // About 6.5 px per character at 11 px, then a gap before the next entry.
    legendX += 17 + one.name.length * 6.5 + 24;
    return entry;
  });
  const height = bottom + 34;
  return [
    `<svg xmlns='http://www.w3.org/2000/svg' width='${WIDTH}' height='${height}' viewBox='0 0 ${WIDTH} ${height}' ${FONT} role='img' aria-label='${escapeXml(title)}'>`,
    `<rect width='${WIDTH}' height='${height}' fill='#fff'/>`,
    `<text x='8' y='18' font-size='14' font-weight='600' fill='#111'>${escapeXml(title)}</text>`,
    ...(subtitle === undefined ? [] : [`<text x='${WIDTH - 8}' y='18' font-size='11' text-anchor='end' fill='#555'>${escapeXml(subtitle)}</text>`]),
    ...legend,
    ...ticks,
    ...parts,
    `<text x='${LABEL_WIDTH + plotWidth / 2}' y='${bottom + 28}' font-size='11' text-anchor='middle' fill='#555'>${escapeXml(unit)} (lower is better)</text>`,
    '</svg>',
    '',
  ].join('\n');
}
