import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { newRun, storeContract } from './store.contract.js';

storeContract('MemoryStore', (now) => Promise.resolve(new MemoryStore({ now })));

describe('MemoryStore', () => {
  it('keeps separate instances apart', async () => {
    const a = new MemoryStore();
    const b = new MemoryStore();
    await a.createRun(newRun('r1'), []);
    expect(await b.getRun('r1')).toBeNull();
  });
});
