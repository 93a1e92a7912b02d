/**
 * Small helpers shared by the benchmarks: medians, number formatting, the load-average warning.
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
 * Watches the 1-minute load average over a benchmark; `warning()` returns a sentence when other
 * processes competed for the CPUs (a load average above 1.5 on this kind of 2-CPU machine), else
 * undefined.
 */
export function loadWatch() {
  const atStart = loadavg()[0];
  let highest = atStart;
  const timer = setInterval(() => {
    highest = Math.max(highest, loadavg()[0]);
  }, 5000);
  timer.unref();
  return {
    warning() {
      const atEnd = loadavg()[0];
      highest = Math.max(highest, atEnd);
      if (highest <= 1.5) return undefined;
      return `WARNING: load average ${atStart.toFixed(2)} at start, ${atEnd.toFixed(2)} at end (highest ${highest.toFixed(2)}): other processes competed for the CPUs; trust the ratios more than the absolute numbers, and rerun on a quiet machine.`;
    },
  };
}
