import type { Convention } from '../core/seam.js';
import { conditional } from './conditional/index.js';
import { cors } from './cors/index.js';
import { events } from './events/index.js';
import { forms } from './forms/index.js';
import { lists } from './lists/index.js';
import { mergePatchConvention } from './merge-patch/index.js';
import { ownership } from './ownership/index.js';
import { projection } from './projection/index.js';
import { ranges } from './ranges/index.js';

/**
 * Every convention restcanon has, in the order of their ranks, which is the order their steps run
 * within a phase: an owner's 403 comes before a precondition's 428 and 412, which come before a
 * merge patch is applied. Ranges and server-sent events add no step: they shape answers of bytes;
 * forms add none either: they read a urlencoded body where the engine reads a body.
 *
 * @example
 * const createApi = apiWith(CONVENTIONS);
 */
export const CONVENTIONS: readonly Convention[] = [cors, lists, ownership, conditional, mergePatchConvention, projection, ranges, events, forms];

export { conditional, cors, events, forms, lists, mergePatchConvention, ownership, projection, ranges };
