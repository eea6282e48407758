/**
 * Caches of values read from watched tables, kept while every change to the tables is heard:
 * ChangeFeed (change-feed.ts) tells them of this process's statements and of other processes'
 * changes. See docs/architecture.md, "Caches of watched tables".
 */

/** A set of tables whose changes bump a generation. */
export class TableWatch {
  /** Bumped on every change that may touch the tables (possibly more often). */
  generation = 0;
  constructor(private readonly feed: { trusted(): boolean }) {}

  /** Whether a cache of these tables may be used now (every change until now has been heard). */
  trusted(): boolean {
    return this.feed.trusted();
  }

  changed(): void {
    this.generation++;
  }
}

/** Where a watch stood when a read for a cache began (`WatchedCache.ticket`). */
export interface CacheTicket {
  generation: number;
  /** Whether every change until then had been heard. */
  heard: boolean;
  at: number;
}

/**
 * A bounded cache of values read from watched tables: emptied whenever they change, and a value
 * stored only if no change came while it was being read. `null` (nothing found) is never stored.
 * A value read while the feed was trusted throughout is used for `ttlMs`, and only while the feed
 * is still trusted. One read while changes could go unheard (another process's, with the
 * listener, the polls or MySQL's triggers missing) is used for `unheardTtlMs` at most (default 0:
 * never), whatever the feed.
 */
export class WatchedCache<K, V> {
  private readonly entries = new Map<K, { value: V; at: number; heard: boolean }>();
  private generation: number;

  constructor(
    private readonly watch: TableWatch,
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly unheardTtlMs = 0,
  ) {
    this.generation = watch.generation;
  }

  async get(key: K, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const ticket = this.ticket();
    if (!ticket) return load();
    const value = await load();
    if (value !== null) this.put(ticket, key, value);
    return value;
  }

  /** The value kept for `key`, if it may be used now. */
  peek(key: K): V | undefined {
    this.sync();
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    const age = Date.now() - hit.at;
    return age < this.unheardTtlMs || (hit.heard && age < this.ttlMs && this.watch.trusted()) ? hit.value : undefined;
  }

  /**
   * Taken before values are read for `put` (a read of many keys at once): where the watch stood
   * then. Null: nothing read now may be kept.
   */
  ticket(): CacheTicket | null {
    const heard = this.watch.trusted();
    return heard || this.unheardTtlMs ? { generation: this.watch.generation, heard, at: Date.now() } : null;
  }

  /** Keeps a value read since `ticket` was taken, unless a change came meanwhile. */
  put(ticket: CacheTicket, key: K, value: V): void {
    this.putAll(ticket, [[key, value]]);
  }

  /** `put` for many values read at once (the feed's state checked once). */
  putAll(ticket: CacheTicket, values: Iterable<[K, V]>): void {
    if (ticket.generation !== this.watch.generation) return;
    const kept = ticket.heard && this.watch.trusted();
    if (!kept && !this.unheardTtlMs) return;
    this.sync();
    for (const [key, value] of values) {
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K);
      this.entries.delete(key);
      this.entries.set(key, { value, at: ticket.at, heard: kept });
    }
  }

  private sync(): void {
    if (this.generation === this.watch.generation) return;
    this.entries.clear();
    this.generation = this.watch.generation;
  }
}
