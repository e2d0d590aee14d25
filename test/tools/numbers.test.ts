import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { locate, saidByUser, scalarEquals } from '../../src/tools/matching.js';
import { numericValue } from '../../src/tools/numbers.js';
import { candidatesOf, kindOf } from '../../src/tools/guards/untrusted.js';

describe('numbers compare as numbers', () => {
  it('numericValue: grouped, decimal and signed numbers; ids and long account numbers stay text', () => {
    expect(['98.70', '1,100.00', '-5', '0.5', 12].map(numericValue)).toEqual([98.7, 1100, -5, 0.5, 12]);
    expect(['007', '1234567890123456', '1,10', 'ORD-17', ''].map(numericValue)).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('in equals, contains and user matching', () => {
    expect(scalarEquals('98.70', 98.7)).toBe(true);
    expect(scalarEquals('1,100.00', '1100')).toBe(true);
    expect(scalarEquals('007', 7)).toBe(false);
    expect(locate(98.7, { total: '98.70' })).toEqual({ path: ['total'] });
    expect(locate(98.7, { text: 'Total: 98.70 EUR' }, { contains: true })).toEqual({
      path: ['text'],
      span: [7, 12],
    });
    expect(locate(100, { text: 'pay 1000 or -100' }, { contains: true })).toBeNull();
    expect(saidByUser(1100, ['send 1,100.00 to my landlord'])).toBe(true);
    expect(saidByUser(110, ['send 1,100.00 to my landlord'])).toBe(false);
  });
});

describe('candidates of a kind in untrusted text', () => {
  it('tells kinds apart and lists every candidate, the value first', () => {
    expect([
      kindOf('a@b.io'),
      kindOf('https://x.io/a'),
      kindOf('GB29NWBK60161331926819'),
      kindOf(5),
      kindOf('Bob'),
    ]).toEqual(['email', 'url', 'iban', 'amount', 'other']);
    const text = 'Mail bob@x.io or eve@evil.io. Total 98.70 EUR, year 2023. Ref INV-2024-001, INV-2023-417.';
    expect(candidatesOf('bob@x.io', [text])).toEqual(['bob@x.io', 'eve@evil.io']);
    expect(candidatesOf(98.7, [text])).toEqual(['98.7']);
    expect(candidatesOf('INV-2024-001', [text])).toEqual(['INV-2024-001', 'INV-2023-417']);
    expect(candidatesOf('Bob', [text])).toEqual(['Bob']);
  });
});

describe('validation of the provenance keys', () => {
  const load = (params: Record<string, unknown>) =>
    loadFlow(
      {
        id: 'x',
        tools: { pay: { write: true, params } as never },
        nodes: [{ id: 'a', tools: ['pay', 'read'] }],
      },
      { knownTools: ['pay', 'read'] },
    );

  it('accepts the keys with their examples', async () => {
    await expect(
      load({
        to: {
          source: 'evidence',
          from: [{ tool: 'read', where: { path: 'user', n: { equals: 3 } } }],
          untrusted: 'single',
        },
        amount: { derive: { op: 'percentage', factor: 19.5, decimals: 2, of: [{ source: 'user' }] } },
      }),
    ).resolves.toBeDefined();
  });

  it('refuses untrusted without evidence, keys beside derive, percentage without factor, an operand without source', async () => {
    await expect(load({ to: { source: 'user', untrusted: 'refuse' } })).rejects.toThrow(
      /untrusted says what a value found in untrusted text may be; expected source: evidence beside it/,
    );
    await expect(
      load({ amount: { source: 'user', derive: { op: 'sum', of: [{ source: 'user' }] } } }),
    ).rejects.toThrow(/source does not apply beside derive/);
    await expect(
      load({ amount: { derive: { op: 'percentage', of: [{ source: 'user' }] } } }),
    ).rejects.toThrow(/percentage needs factor/);
    await expect(load({ amount: { derive: { op: 'sum', of: [{ path: 'a' }] } } })).rejects.toThrow(
      /an operand needs source/,
    );
    await expect(
      load({ to: { source: 'evidence', from: [{ tool: 'read', where: { path: 'maybe' } }] } }),
    ).rejects.toThrow(/expected user or \{ equals: <value> \}|expected a tool name or/);
  });
});
