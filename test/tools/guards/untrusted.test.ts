import { describe, expect, it } from 'vitest';
import type { EvidenceRecord } from '../../../src/records/run-state.js';
import { occursIn } from '../../../src/tools/matching.js';
import {
  candidatesOf,
  contextAround,
  fromEntryNames,
  kindOf,
  redact,
  textsOf,
} from '../../../src/tools/guards/untrusted.js';

// Direct tests of src/tools/guards/untrusted.ts (test/tools/numbers.test.ts has a first case of kindOf
// and candidatesOf).

function evidence(tool: string, args: Record<string, unknown>, payload: unknown = {}): EvidenceRecord {
  return {
    id: 'ev_1',
    tool,
    args,
    fingerprint: 'fp',
    outcome: 'SUCCESS',
    errorCode: null,
    payload,
    ts: '2026-01-01T00:00:00.000Z',
    nodeId: 'n',
    callId: 'c',
  };
}

describe('fromEntryNames', () => {
  const read = evidence('read_file', { file_path: '/home/bill.txt', limit: 10 });

  it('a tool name names every call of that tool', () => {
    expect(fromEntryNames('read_file', read, [])).toBe(true);
    expect(fromEntryNames('write_file', read, [])).toBe(false);
  });

  it('`where: user`: the argument must be in the user’s words', () => {
    const entry = { tool: 'read_file', where: { file_path: 'user' as const } };
    expect(fromEntryNames(entry, read, ['please pay the bill in /home/bill.txt'])).toBe(true);
    expect(fromEntryNames(entry, read, ['please pay my bill'])).toBe(false);
  });

  it('`where: {equals}`: the argument must equal the literal, after matching normalisation', () => {
    expect(fromEntryNames({ tool: 'read_file', where: { limit: { equals: 10 } } }, read, [])).toBe(true);
    expect(fromEntryNames({ tool: 'read_file', where: { limit: { equals: '10' } } }, read, [])).toBe(true);
    expect(fromEntryNames({ tool: 'read_file', where: { limit: { equals: 11 } } }, read, [])).toBe(false);
  });

  it('every condition must hold; a missing argument fails; another tool never matches', () => {
    const both = { tool: 'read_file', where: { file_path: 'user' as const, limit: { equals: 10 } } };
    expect(fromEntryNames(both, read, ['/home/bill.txt'])).toBe(true);
    expect(fromEntryNames(both, read, ['nothing'])).toBe(false);
    expect(fromEntryNames({ tool: 'read_file', where: { offset: { equals: 0 } } }, read, [])).toBe(false);
    expect(fromEntryNames({ tool: 'other', where: { limit: { equals: 10 } } }, read, [])).toBe(false);
  });

  it('an object argument never equals a literal', () => {
    const call = evidence('search', { filter: { a: 1 } });
    expect(fromEntryNames({ tool: 'search', where: { filter: { equals: 'a' } } }, call, [])).toBe(false);
  });
});

describe('redact', () => {
  const MARK = redact('x', ['x']);
  const payload = {
    subject: 'Pay to US1234',
    amount: 100,
    trusted: { iban: 'DE89', note: 'Pay to US1234' },
    list: ['a', 'b'],
  };

  it('replaces every leaf equal to a selected one, wherever it stands', () => {
    const out = redact(payload, ['Pay to US1234']) as typeof payload;
    expect(out.subject).not.toBe('Pay to US1234');
    expect(out.trusted.note).toBe(out.subject);
    expect(out.trusted.iban).toBe('DE89');
    expect(out.amount).toBe(100);
    expect(occursIn('Pay to US1234', out)).toBe(false);
  });

  it('the marker is plain JSON no normal value matches', () => {
    const out = redact({ a: 'x' }, ['x']) as { a: string };
    expect(typeof out.a).toBe('string');
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    expect(out.a.includes('untrusted')).toBe(true);
    expect(occursIn('untrusted', out)).toBe(false);
  });

  it('replaces a whole selected sub-tree, and its leaves elsewhere', () => {
    const out = redact(payload, [['a', 'b']]) as { list: unknown; subject: string };
    expect(typeof out.list).toBe('string');
    expect(redact({ x: 'a', y: ['a', 'b'] }, [['a', 'b']])).toEqual({
      x: MARK,
      y: MARK,
    });
    const objects = redact({ t: { k: 1 }, u: { k: 2 } }, [{ k: 1 }]) as Record<string, unknown>;
    expect(objects.u).toEqual({ k: 2 });
    expect(typeof objects.t).toBe('string');
  });

  it('nothing selected leaves an equal copy; null is never redacted', () => {
    expect(redact(payload, [])).toEqual(payload);
    expect(redact(payload, [undefined])).toEqual(payload);
    expect(redact({ a: null, b: 'x' }, [null])).toEqual({ a: null, b: 'x' });
    expect(redact(payload, ['no such'])).not.toBe(payload);
  });

  it('compares leaves by identity of value: a number is not its string', () => {
    expect(redact({ a: 100, b: '100' }, [100])).toEqual({ a: MARK, b: '100' });
  });
});

describe('kindOf', () => {
  it('amounts first: numbers and numeric strings', () => {
    expect([5, -2.5, '98.70', '1,000'].map(kindOf)).toEqual(['amount', 'amount', 'amount', 'amount']);
  });

  it('e-mail addresses, URLs and IBANs, written alone', () => {
    expect(kindOf('first.last+tag@mail.example.org')).toBe('email');
    expect(kindOf(' bob@x.io ')).toBe('email');
    expect(kindOf('mail bob@x.io')).toBe('other');
    expect(kindOf('http://a.b/c?d=1')).toBe('url');
    expect(kindOf('www.example.com')).toBe('url');
    expect(kindOf('DE89 3704 0044 0532 0130 00')).toBe('iban');
    expect(kindOf('DE89370400440532013000')).toBe('iban');
  });

  it('a code is a token of six or more characters holding a digit', () => {
    expect(kindOf('INV-2024-001')).toBe('code');
    expect(kindOf('AB1234')).toBe('code');
    expect(kindOf('AB123')).toBe('other'); // five characters
    expect(kindOf('ABCDEF')).toBe('other'); // no digit
    expect(kindOf('-AB1234')).toBe('other'); // starts with a dash
    expect(kindOf('007')).toBe('other'); // not a number (leading zero) and too short
    expect(kindOf('0071234')).toBe('code');
  });

  it('everything else is other', () => {
    expect([null, true, false, { a: 1 }, ['x'], 'Bob', ''].map(kindOf)).toEqual(Array(7).fill('other'));
  });
});

describe('candidatesOf', () => {
  it('an other value is its own only candidate', () => {
    expect(candidatesOf('Bob', ['Bob and Alice and Eve'])).toEqual(['Bob']);
    expect(candidatesOf(true, ['x'])).toEqual(['true']);
  });

  it('e-mail addresses: the value first, then the others as written, each once, without trailing dots', () => {
    const texts = ['Send to bob@x.io.', 'or to Eve@Evil.io, or eve@evil.io; BOB@X.IO'];
    expect(candidatesOf('bob@x.io', texts)).toEqual(['bob@x.io', 'Eve@Evil.io']);
  });

  it('the value comes first even when no text holds it', () => {
    expect(candidatesOf('carol@c.io', ['bob@x.io'])).toEqual(['carol@c.io', 'bob@x.io']);
    expect(candidatesOf('carol@c.io', [])).toEqual(['carol@c.io']);
  });

  it('URLs and IBANs, white space in an IBAN ignored', () => {
    expect(candidatesOf('https://a.io/x', ['see https://a.io/x and https://b.io/y.'])).toEqual([
      'https://a.io/x',
      'https://b.io/y',
    ]);
    expect(
      candidatesOf('DE89370400440532013000', ['IBAN DE89 3704 0044 0532 0130 00, or GB29NWBK60161331926819']),
    ).toEqual(['DE89370400440532013000', 'GB29NWBK60161331926819']);
  });

  it('amounts: numbers with decimals or beside a currency, the value’s own number counted once', () => {
    const text = 'Rent 1,100.00 EUR, increase $100 and 3 people in 2024; also 98.7 or €5.';
    expect(candidatesOf(1100, [text])).toEqual(['1100', '100', '98.7', '5']);
    expect(candidatesOf('98.70', ['total 98.70 EUR'])).toEqual(['98.70']);
    expect(candidatesOf(7, ['no amount 7 here'])).toEqual(['7']);
    expect(candidatesOf(7, ['¥8 or 9元'])).toEqual(['7', '8', '9']);
    // One or two decimals make an amount; three (a ratio, a version) do not, unless beside a currency.
    expect(candidatesOf(5, ['ratio 1.234, fee 2.5, or 3.75'])).toEqual(['5', '2.5', '3.75']);
  });

  it('codes: only tokens of the same shape', () => {
    const text = 'Ref INV-2024-001 (see INV-2023-417, ORDER-12, AB-1234-567, ABC-1234-567, INV-2024-001).';
    // Letters and digits count as classes: `ABC-1234-567` has the shape, `AB-1234-567` not.
    expect(candidatesOf('INV-2024-001', [text])).toEqual(['INV-2024-001', 'INV-2023-417', 'ABC-1234-567']);
    expect(candidatesOf('INV-2099-999', [text])).toEqual([
      'INV-2099-999',
      'INV-2024-001',
      'INV-2023-417',
      'ABC-1234-567',
    ]);
    expect(candidatesOf('inv-2024-001', ['INV-2024-001'])).toEqual(['inv-2024-001']);
  });
});

describe('textsOf', () => {
  it('the string leaves of every selection, in order; other leaves and undefined left out', () => {
    expect(textsOf([{ a: 'x', b: [1, 'y', null] }, 'z', undefined, 5, ['w', true]])).toEqual([
      'x',
      'y',
      'z',
      'w',
    ]);
    expect(textsOf([])).toEqual([]);
  });
});

describe('contextAround', () => {
  const text = `${'a'.repeat(100)}MATCH${'b'.repeat(100)}`;

  it('up to width characters on each side, with … where cut', () => {
    expect(contextAround(text, [100, 105], 3)).toBe('…aaaMATCHbbb…');
    expect(contextAround('xxMATCHyy', [2, 7], 3)).toBe('xxMATCHyy');
    expect(contextAround('xxxxMATCH', [4, 9], 2)).toBe('…xxMATCH');
    expect(contextAround(text, [100, 105])).toBe(`…${'a'.repeat(60)}MATCH${'b'.repeat(60)}…`);
  });

  it('without a span, the start of the text, cut at twice the width', () => {
    expect(contextAround('short', undefined, 3)).toBe('short');
    expect(contextAround('abcdefg', undefined, 3)).toBe('abcdef…');
    expect(contextAround('abcdef', undefined, 3)).toBe('abcdef');
  });
});
