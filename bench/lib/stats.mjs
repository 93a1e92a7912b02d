/**
 * Small helpers shared by the benchmarks: medians, number formatting, the load average.
 */
import { loadavg } from 'node:os';

/** @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** @param {number} value @param {number} [digits] */
export const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** @param {number} value */
export const thousands = (value) => Math.round(value).toLocaleString('en-US');

/** @param {number} perSecond */
export function rate(perSecond) {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)} k`;
  return perSecond.toFixed(0);
}

/** @param {number} ratio */
export const times = (ratio) => `${ratio.toFixed(2)}x`;

/** @param {number} bytes */
export const mebibytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

/**
 * Watches the 1-minute load average over a benchmark (see report.mjs, which prints it under every
 * benchmark's tables).
 */
export function loadWatch() {
  const atStart = loadavg()[0];
  let highest = atStart;
  const timer = setInterval(() => {
    highest = Math.max(highest, loadavg()[0]);
  }, 5000);
  timer.unref();
  return {
    /** The 1-minute load average at the start, now, and the highest seen in between. */
    averages() {
      const atEnd = loadavg()[0];
      highest = Math.max(highest, atEnd);
      return { atStart, atEnd, highest };
    },
  };
}
