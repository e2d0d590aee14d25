import { describe, expect, it } from 'vitest';
import { MCP_SPECS } from '../../src/domain/error-codes-mcp.js';
import { PROVENANCE_SPECS, PROVENANCE_TEXTS } from '../../src/domain/error-codes-provenance.js';
import { code, RuntimeErrorCode } from '../../src/domain/error-codes.js';
import { GUARD_CODES, GUARD_TEXTS, isUserCodeNumber } from '../../src/domain/guard-codes.js';
import { APPROVAL_TEXTS } from '../../src/domain/hints-approval.js';
import { MCP_TEXTS } from '../../src/domain/hints-mcp.js';
import { NOTIFY_TEXTS } from '../../src/domain/hints-notify.js';
import { VALUE_TEXTS } from '../../src/domain/hints-values.js';
import { hint, hintKeys, hintTemplate, list, type HintKey } from '../../src/domain/hints.js';
import { LOCALES, type Localized } from '../../src/domain/locale.js';

/**
 * Every text shown to the model exists in zh-CN and en (CONTRIBUTING.md, "House rules") with the same
 * `{name}` placeholders, so that a producer filling one locale fills the other. The lists are read
 * from the modules themselves: a new hint or code is checked without touching this file.
 */

/** The placeholder names of a template, sorted, with repeats (the same set `fill` recognises). */
function placeholders(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string).sort();
}

/** Every placeholder of a template filled with a marker naming it. */
function filledParams(template: string): Record<string, string> {
  return Object.fromEntries(placeholders(template).map((name) => [name, `<${name}>`]));
}

const CJK = /[\u3400-\u9fff]/;

describe('hints: every key in both locales', () => {
  const keys = hintKeys();

  it('lists many keys, each once', () => {
    expect(keys.length).toBeGreaterThan(100);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('every key has a non-empty text in every locale, without surrounding white space', () => {
    for (const key of keys) {
      for (const locale of LOCALES) {
        const text = hintTemplate(locale, key);
        expect(text.trim(), `${key} ${locale}`).not.toBe('');
        expect(text, `${key} ${locale}`).toBe(text.trim());
      }
    }
  });

  it.each(keys)('%s has the same placeholders in zh-CN and en', (key) => {
    expect(placeholders(hintTemplate('en', key))).toEqual(placeholders(hintTemplate('zh-CN', key)));
  });

  it('en texts are in English: no Chinese characters', () => {
    const chinese = keys.filter((key) => CJK.test(hintTemplate('en', key)));
    expect(chinese).toEqual([]);
  });

  it('NEXT_* texts follow `Next:` in en (`<reason>. Next: <next step>`), so they start in lower case', () => {
    const next = keys.filter((key) => key.startsWith('NEXT_'));
    expect(next.length).toBeGreaterThan(40);
    const upper = next.filter((key) => !/^[a-z]/.test(hintTemplate('en', key)));
    expect(upper).toEqual([]);
  });
});

describe('hint()', () => {
  it('filling every placeholder of a key leaves none visible, in both locales', () => {
    for (const key of hintKeys()) {
      for (const locale of LOCALES) {
        const params = filledParams(hintTemplate(locale, key));
        const text = hint(locale, key, params);
        expect(text, `${key} ${locale}`).not.toMatch(/\{\w+\}/);
        for (const value of Object.values(params)) expect(text, `${key} ${locale}`).toContain(value);
      }
    }
  });

  it('leaves missing placeholders visible and fills the same one everywhere it stands', () => {
    expect(hint('en', 'NEXT_APPROVAL_REQUIRED')).toBe(hintTemplate('en', 'NEXT_APPROVAL_REQUIRED'));
    expect(hint('en', 'NEXT_APPROVAL_REQUIRED', { tool: 'web_site_create' })).toBe(
      'call builtin_node_approval with tool web_site_create to ask the user for approval; once approved, call web_site_create again with the same arguments',
    );
    expect(hint('zh-CN', 'NEXT_ARG_REJECTED', { field: 'name' })).toBe(
      '按规则修正参数 [name] 后再调用 {tool}',
    );
  });

  it('fills the id inside the literal JSON of the compaction stub and keeps the JSON braces', () => {
    expect(hint('en', 'CONTEXT_STUB', { chars: 1200, id: 'ev_3' })).toBe(
      '[result compacted (1200 characters); builtin_evidence_read {"id":"ev_3"} shows it again]',
    );
    expect(hint('zh-CN', 'CONTEXT_STUB', { chars: 1200, id: 'ev_3' })).toBe(
      '[结果已压缩（1200 字符）；调用 builtin_evidence_read {"id":"ev_3"} 可再次查看]',
    );
  });

  it('texts without placeholders are returned as they are', () => {
    expect(hint('en', 'NODE_FINISHED', { unused: 'x' })).toBe('Node finished');
    expect(hint('zh-CN', 'NONE')).toBe('（无）');
    expect(hint('en', 'NONE')).toBe('(none)');
  });
});

describe('the hint tables kept in other files', () => {
  const parts: [string, Record<string, Localized<string>>][] = [
    ['VALUE_TEXTS', VALUE_TEXTS],
    ['GUARD_TEXTS', GUARD_TEXTS],
    ['MCP_TEXTS', MCP_TEXTS],
    ['APPROVAL_TEXTS', APPROVAL_TEXTS],
    ['NOTIFY_TEXTS', NOTIFY_TEXTS],
    ['PROVENANCE_TEXTS', PROVENANCE_TEXTS],
  ];

  it('share no key with each other (a repeated key would silently replace a text)', () => {
    const owner = new Map<string, string>();
    for (const [name, table] of parts) {
      for (const key of Object.keys(table)) {
        expect(owner.get(key), `${key} in ${name}`).toBeUndefined();
        owner.set(key, name);
      }
    }
  });

  it.each(parts)('%s: every text is in the one table, unchanged', (_name, table) => {
    const all = new Set<string>(hintKeys());
    for (const [key, texts] of Object.entries(table)) {
      expect(all.has(key), key).toBe(true);
      for (const locale of LOCALES) expect(hintTemplate(locale, key as HintKey)).toBe(texts[locale]);
    }
  });
});

describe('list()', () => {
  it('joins with 、 in zh-CN and with a comma in en', () => {
    expect(list('zh-CN', ['a', 'b', 'c'])).toBe('a、b、c');
    expect(list('en', ['a', 'b', 'c'])).toBe('a, b, c');
  });

  it('gives the single item alone and nothing for no items', () => {
    expect(list('zh-CN', ['a'])).toBe('a');
    expect(list('en', ['a'])).toBe('a');
    expect(list('en', [])).toBe('');
    expect(list('zh-CN', [])).toBe('');
  });
});

describe('error codes: every code in both locales', () => {
  const codes = RuntimeErrorCode.values();

  it('names are unique and each is found by its own name', () => {
    const names = codes.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of codes) expect(RuntimeErrorCode.of(c.name)).toBe(c);
  });

  it('numbers are unique five-digit numbers outside the range of user guards (60000-69999)', () => {
    const numbers = codes.map((c) => c.no);
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const c of codes) {
      expect(Number.isInteger(c.no), c.name).toBe(true);
      expect(c.no, c.name).toBeGreaterThanOrEqual(10000);
      expect(c.no, c.name).toBeLessThanOrEqual(99999);
      expect(isUserCodeNumber(c.no), c.name).toBe(false);
    }
  });

  it.each(codes.map((c) => [c.name, c] as const))('%s has the same placeholders in zh-CN and en', (_n, c) => {
    expect(placeholders(c.template('en'))).toEqual(placeholders(c.template('zh-CN')));
  });

  it('en reasons are in English and every reason is trimmed', () => {
    for (const c of codes) {
      expect(CJK.test(c.template('en')), c.name).toBe(false);
      for (const locale of LOCALES) expect(c.template(locale), c.name).toBe(c.template(locale).trim());
    }
  });

  it('reason() fills every placeholder of either locale with the same params', () => {
    for (const c of codes) {
      const params = filledParams(c.template('en'));
      for (const locale of LOCALES) {
        const text = c.reason(locale, params);
        expect(text, `${c.name} ${locale}`).not.toMatch(/\{\w+\}/);
        for (const value of Object.values(params)) expect(text, `${c.name} ${locale}`).toContain(value);
      }
    }
  });

  it('reason() without params is the template', () => {
    for (const c of codes) for (const locale of LOCALES) expect(c.reason(locale)).toBe(c.template(locale));
  });
});

describe('the code tables kept in other files', () => {
  const parts: [string, Record<string, { no: number; outcome: string; reason: Localized<string> }>][] = [
    ['MCP_SPECS', MCP_SPECS],
    ['GUARD_CODES', GUARD_CODES],
    ['PROVENANCE_SPECS', PROVENANCE_SPECS],
  ];

  it('share no name with each other', () => {
    const names = parts.flatMap(([, table]) => Object.keys(table));
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(parts)(
    '%s: every code is in the one table with its own number, outcome and reasons',
    (_n, table) => {
      for (const [name, spec] of Object.entries(table)) {
        const c = RuntimeErrorCode.of(name);
        expect([c.no, c.outcome], name).toEqual([spec.no, spec.outcome]);
        for (const locale of LOCALES) expect(c.template(locale), name).toBe(spec.reason[locale]);
      }
    },
  );
});

describe('RuntimeErrorCode.user', () => {
  it("makes a guard's code: its own name, number and outcome, its reason the guard's text", () => {
    const c = RuntimeErrorCode.user('REFUND_TOO_HIGH', 61001, 'REJECTED');
    expect([c.name, c.no, c.outcome, c.producer]).toEqual([
      'REFUND_TOO_HIGH',
      61001,
      'REJECTED',
      'user-guards',
    ]);
    expect(c.reason('en', { reason: 'Refunds above 500 EUR need a manager' })).toBe(
      'Refunds above 500 EUR need a manager',
    );
    expect(c.reason('zh-CN', { reason: '退款超过 500 欧元' })).toBe('退款超过 500 欧元');
    expect(c.template('en')).toBe('{reason}');
    expect(JSON.stringify({ code: c })).toBe('{"code":"REFUND_TOO_HIGH"}');
  });

  it('is not added to the table', () => {
    const before = RuntimeErrorCode.values().length;
    RuntimeErrorCode.user('ANOTHER_GUARD_CODE', 62000, 'DEFERRED');
    expect(RuntimeErrorCode.values()).toHaveLength(before);
    expect(() => RuntimeErrorCode.of('ANOTHER_GUARD_CODE')).toThrow(
      'unknown RuntimeErrorCode "ANOTHER_GUARD_CODE"',
    );
    expect(code('GUARD_ERROR').producer).toBe('user-guards');
  });
});
