/**
 * The entries of a store ordered by when they expire: a binary min-heap on `expiresAt` in which each
 * entry knows its own place (`slot`), so that an entry is moved or taken out where it stands in
 * O(log n). It holds exactly one node per live entry and nothing else: no node outlives its entry,
 * so the heap is bounded by the store's own bound.
 */

/** What the heap orders: any record with an expiry and a place kept for the heap. */
export interface Expiring {
  expiresAt: number;
  /** The entry's index in the heap's array, kept up to date by the heap. */
  slot: number;
}

/**
 * A min-heap of expiring entries, soonest first.
 *
 * @example
 * const heap = new ExpiryHeap<{ expiresAt: number; slot: number; key: string }>();
 * heap.push({ expiresAt: 20, slot: -1, key: 'b' });
 * heap.push({ expiresAt: 10, slot: -1, key: 'a' });
 * heap.peek()?.key; // 'a'
 */
export class ExpiryHeap<Entry extends Expiring> {
  readonly #nodes: Entry[] = [];

  get size(): number {
    return this.#nodes.length;
  }

  /** The entry that expires soonest, left in place. */
  peek(): Entry | undefined {
    return this.#nodes[0];
  }

  push(entry: Entry): void {
    entry.slot = this.#nodes.length;
    this.#nodes.push(entry);
    this.#up(entry.slot);
  }

  /** Takes `entry` out, wherever it stands. */
  remove(entry: Entry): void {
    const last = this.#nodes.pop()!;
    if (last !== entry) {
      this.#nodes[entry.slot] = last;
      last.slot = entry.slot;
      this.#settle(last.slot);
    }
    entry.slot = -1;
  }

  /** Puts `entry` back in order after its `expiresAt` changed. */
  update(entry: Entry): void {
    this.#settle(entry.slot);
  }

  #settle(slot: number): void {
    if (!this.#up(slot)) this.#down(slot);
  }

  /** Moves the node at `slot` towards the root while it expires sooner than its parent; true when it moved. */
  #up(slot: number): boolean {
    const nodes = this.#nodes;
    const node = nodes[slot]!;
    let at = slot;
    while (at > 0) {
      const parentSlot = (at - 1) >> 1;
      const parent = nodes[parentSlot]!;
      if (parent.expiresAt <= node.expiresAt) break;
      nodes[at] = parent;
      parent.slot = at;
      at = parentSlot;
    }
    nodes[at] = node;
    node.slot = at;
    return at !== slot;
  }

  #down(slot: number): void {
    const nodes = this.#nodes;
    const node = nodes[slot]!;
    let at = slot;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= nodes.length) break;
      const right = left + 1;
      const child = right < nodes.length && nodes[right]!.expiresAt < nodes[left]!.expiresAt ? right : left;
      if (nodes[child]!.expiresAt >= node.expiresAt) break;
      nodes[at] = nodes[child]!;
      nodes[at]!.slot = at;
      at = child;
    }
    nodes[at] = node;
    node.slot = at;
  }
}
