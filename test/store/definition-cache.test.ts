import { describe, expect, it } from 'vitest';
import { DefinitionCache } from '../../src/store/shared.js';

const flow = (id: string, padding = 0) => ({
  id,
  locale: 'en',
  description: 'x'.repeat(padding),
  nodes: [{ id: 'main' }],
});

describe('DefinitionCache', () => {
  it('holds at most `size` definitions, oldest evicted first', () => {
    const cache = new DefinitionCache(3);
    for (const id of ['a', 'b', 'c', 'd']) cache.remember(id, { flow: flow(id), input: null });
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')?.flow.id).toBe('d');
    expect(cache.held.count).toBe(3);
  });

  it('holds about `maxBytes` of JSON, however few definitions that is, and always the newest', () => {
    const cache = new DefinitionCache(1000, 10_000);
    for (let i = 0; i < 20; i++) cache.remember(`r${i}`, { flow: flow(`f${i}`, 3_000), input: null });
    expect(cache.held.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.held.count).toBeLessThanOrEqual(3);
    expect(cache.get('r19')).toBeDefined();
    cache.remember('huge', { flow: flow('huge', 50_000), input: null });
    expect(cache.get('huge')).toBeDefined();
    expect(cache.held.count).toBe(1);
    // Remembering a run again replaces its entry (its bytes are not counted twice).
    cache.remember('huge', { flow: flow('huge', 50_000), input: null }, 100);
    expect(cache.held).toEqual({ count: 1, bytes: 100 });
  });
});
