import type { Settings } from '../../../config/settings';
import type { RequestContext } from '../../../core/context';
import { ResourceRegistry } from '../../../core/resource/registry';
import { ChangeFeed } from '../../../database/change-feed';
import { TableWatch, WatchedCache } from '../../../database/watched-cache';
import type { Db } from '../../../database/db';
import { ExtrasCustomFieldSource } from './source';

/** A source over a feed whose trust the test sets, counting the definitions' reads. */
function source(cacheSeconds: number) {
  const feed = { trusted: false };
  const watch = new TableWatch({ trusted: () => feed.trusted } as unknown as ChangeFeed);
  const cache = (_tables: string[], o: { max: number; ttlMs: number; unheardTtlMs?: number }) => new WatchedCache(watch, o.max, o.ttlMs, o.unheardTtlMs);
  const db = { feed: { cache } } as unknown as Db;
  const settings = { DEFINITION_CACHE_SECONDS: cacheSeconds } as Settings;
  let reads = 0;
  const row = { id: 'f1', key: 'k', label: 'K', type: 'text', required: false, default: null, filter_logic: 'loose', weight: 100, content_type: 'tenancy.tenant', choice_value: null };
  const ctx = { db: { query: async () => (reads++, [row]) } } as unknown as RequestContext;
  const s = new ExtrasCustomFieldSource(new ResourceRegistry(), db, settings);
  return { feed, watch, read: () => s.byType(ctx), reads: () => reads };
}

describe('ExtrasCustomFieldSource', () => {
  it('keeps definitions read while changes were heard, until they may have changed', async () => {
    const s = source(0);
    s.feed.trusted = true;
    await s.read();
    await s.read();
    expect(s.reads()).toBe(1);
    s.watch.changed();
    expect((await s.read()).get('tenancy.tenant')?.map((d) => d.key)).toEqual(['k']);
    expect(s.reads()).toBe(2);
  });

  it('keeps definitions read while changes could go unheard no longer than DEFINITION_CACHE_SECONDS', async () => {
    const s = source(0);
    await s.read();
    await s.read();
    expect(s.reads()).toBe(2);
    // The feed is trusted again (a new listener): what was read before may miss a change made meanwhile.
    s.feed.trusted = true;
    await s.read();
    expect(s.reads()).toBe(3);
    await s.read();
    expect(s.reads()).toBe(3);
  });

  it('does not stretch definitions read unheard past DEFINITION_CACHE_SECONDS once the feed is trusted again', async () => {
    const s = source(0.05);
    await s.read();
    await s.read();
    expect(s.reads()).toBe(1);
    await new Promise((r) => setTimeout(r, 80));
    s.feed.trusted = true;
    await s.read();
    expect(s.reads()).toBe(2);
    await s.read();
    expect(s.reads()).toBe(2);
  });

  it('keeps definitions DEFINITION_CACHE_SECONDS whatever the feed, unless they may have changed', async () => {
    const s = source(3600);
    await s.read();
    await s.read();
    expect(s.reads()).toBe(1);
    s.watch.changed();
    await s.read();
    expect(s.reads()).toBe(2);
  });

  it('does not keep what it read while a change was under way', async () => {
    const s = source(3600);
    const first = s.read();
    s.watch.changed(); // a statement of this process wrote the tables while the read ran
    await first;
    await s.read();
    expect(s.reads()).toBe(2);
  });
});
