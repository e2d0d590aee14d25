import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../../src/domain/flow.js';
import type { Observation } from '../../../src/domain/observation.js';
import type { Stop } from '../../../src/tools/stages.js';
import type { ParsedCall } from '../../../src/tools/stages.js';
import {
  carries,
  confidentialGuard,
  confidentialValues,
  masked,
} from '../../../src/tools/guards/confidential.js';
import { defineTool } from '../../../src/tools/tool.js';
import { harness, parts, type Harness } from './fixtures.js';

// Direct tests of src/tools/guards/confidential.ts (docs/flows.md, "Confidential values");
// test/tools/guards/confidential-reply-rule.test.ts has the first cases of carries and masked.

const PROFILE = {
  name: 'Emma Johnson',
  passport: 'HGK137803',
  card: '4237-4252-7456-2574',
  balance: 1250,
  pin: '42',
  blank: '  ',
  flag: true,
};

const tools = [
  defineTool({
    name: 'get_user',
    description: 'profile',
    write: false,
    inputSchema: { type: 'object', properties: {} },
    execute: () => PROFILE,
  }),
  defineTool({
    name: 'get_docs',
    description: 'documents',
    write: false,
    inputSchema: { type: 'object', properties: {} },
    execute: () => ({ notes: 'Passport HGK137803 again', code: 'X-777' }),
  }),
  defineTool({
    name: 'fail_user',
    description: 'fails',
    write: false,
    inputSchema: { type: 'object', properties: {} },
    execute: () => {
      throw new Error('down');
    },
  }),
  defineTool({
    name: 'send',
    description: 'send a message',
    write: true,
    inputSchema: { type: 'object', properties: { to: {}, body: {} } },
    execute: () => ({ ok: true }),
  }),
];

const FLOW: FlowInput = {
  id: 'confidential',
  locale: 'en',
  tools: {
    get_user: { trust: { confidential: ['passport', 'card', 'balance', 'pin', 'blank', 'flag'] } },
    get_docs: { trust: { untrusted: ['notes'], confidential: ['$'] } },
    fail_user: { trust: { confidential: ['$'] } },
    send: { write: true },
  },
  nodes: [{ id: 'n', tools: ['get_user', 'get_docs', 'fail_user', 'send'] }],
};

function setup(text = 'send my details to bob@x.io'): Harness {
  return harness({ flow: FLOW, localTools: tools, input: { text } });
}

/** The call as the guard sees it after the argument policy. */
function parsed(h: Harness, tool: string, args: Record<string, unknown>): ParsedCall {
  return {
    ...h.ctx(tool, args),
    descriptor: h.tools.get(tool) ?? (h.visible.get(tool) as never),
    policy: h.flow.tools[tool],
    isWrite: h.flow.tools[tool]?.write === true,
    args,
    fingerprint: `${tool}:${JSON.stringify(args)}`,
  };
}

async function guard(h: Harness, tool: string, args: Record<string, unknown>): Promise<Observation | null> {
  const out = (await confidentialGuard()(parsed(h, tool, args))) as Partial<Stop>;
  return out.stop ?? null;
}

describe('carries', () => {
  it('numbers as numbers, in any grouping, never inside a longer number', () => {
    expect(carries('pay 1250 now', '1,250.00')).toBe(true);
    expect(carries('pay 1,250 now', 1250)).toBe(true);
    expect(carries('pay 11250 now', 1250)).toBe(false);
    expect(carries('pay 1250.5 now', 1250)).toBe(false);
  });

  it('a confidential number glued to Han characters is carried (余额1250元)', () => {
    expect(carries('余额1250元', 1250)).toBe(true);
    expect(carries('价格98.70元', 98.7)).toBe(true);
  });

  it('a short number is found only as a number: never inside a word or an id', () => {
    expect(carries('room 42', 42)).toBe(true);
    expect(carries('room A42B', 42)).toBe(false);
    expect(carries('room 420', '42')).toBe(false);
  });

  it('a value with a digit and 6+ characters ignores spaces and dashes on both sides', () => {
    expect(carries('acct: de89-3704 0044', 'DE89 3704-0044')).toBe(true);
    expect(carries('id X1Y2Z3W', 'x1y2z3')).toBe(true); // inside a longer token too
    expect(carries('id X1Y2Z', 'x1y2z3')).toBe(false);
  });

  it('a value with a digit under 6 characters: inside words from 4 characters, else a whole word', () => {
    expect(carries('code xA-12y ok', 'a-12')).toBe(true);
    expect(carries('code xA-1y ok', 'a-1')).toBe(false);
    expect(carries('code A-1 ok', 'a-1')).toBe(false); // the dash splits the words `a` and `1`
    expect(carries('code a12 ok', 'A12')).toBe(true);
    expect(carries('code xa12 ok', 'A12')).toBe(false);
  });

  it('a word of 4+ characters is found inside other words, case and white space ignored', () => {
    expect(carries('Re: SWORDFISHING trip', 'swordfish')).toBe(true);
    expect(carries('the key is s w o r d', 'sword')).toBe(true);
    expect(carries('the key is sw0rd', 'sword')).toBe(false);
  });

  it('full-width and surrounding white space fold', () => {
    expect(carries('passport ＨＧＫ１３７８０３', 'HGK137803')).toBe(true);
    expect(carries('passport HGK137803', '  hgk137803  ')).toBe(true);
  });

  it('an empty value is never carried', () => {
    expect(carries('anything', '')).toBe(false);
    expect(carries('', '')).toBe(false);
  });
});

describe('masked', () => {
  it('four characters or fewer are all masked', () => {
    expect(masked('')).toBe('');
    expect(masked('1234')).toBe('••••');
    expect(masked(42)).toBe('••');
  });

  it('five to seven keep one character at each end; eight or more keep two', () => {
    expect(masked('1234567')).toBe('1•••••7');
    expect(masked('12345678')).toBe('12••••78');
    expect(masked(4237425274562574)).toBe('42••••••••••••74');
  });
});

describe('confidentialValues', () => {
  it('none before any result with confidential parts', async () => {
    const h = setup();
    expect(await confidentialValues(parsed(h, 'send', {}))).toEqual([]);
  });

  it('the strings and numbers the confidential paths select, each once, in reading order', async () => {
    const h = setup();
    await h.call('get_user');
    await h.call('get_docs');
    await h.call('get_user');
    expect(await confidentialValues(parsed(h, 'send', {}))).toEqual([
      { value: 'HGK137803', tool: 'get_user' },
      { value: '4237-4252-7456-2574', tool: 'get_user' },
      { value: 1250, tool: 'get_user' },
      { value: '42', tool: 'get_user' },
      { value: 'Passport HGK137803 again', tool: 'get_docs' },
      { value: 'X-777', tool: 'get_docs' },
    ]);
  });

  it('leaves out failed results, blank strings and booleans', async () => {
    const h = setup();
    const { obs } = await h.call('fail_user');
    expect(obs.outcome.name).toBe('FAILED');
    expect(h.run.evidence).toHaveLength(1);
    expect(await confidentialValues(parsed(h, 'send', {}))).toEqual([]);
  });

  it('a path that fails to evaluate is logged and gives nothing', async () => {
    const flow: FlowInput = {
      ...FLOW,
      tools: { ...FLOW.tools, get_user: { trust: { confidential: ['$number(name) + 1', 'passport'] } } },
    };
    const h = harness({ flow, localTools: tools, input: { text: 'x' } });
    await h.call('get_user');
    expect(await confidentialValues(parsed(h, 'send', {}))).toEqual([
      { value: 'HGK137803', tool: 'get_user' },
    ]);
    expect(h.logger.find('TOOL confidential path failed')).toHaveLength(1);
    expect(h.logger.find('TOOL confidential path failed')[0]?.fields.tool).toBe('get_user');
  });
});

describe('confidentialGuard', () => {
  it('refuses a write carrying a confidential value the user did not state, masking it', async () => {
    const h = setup();
    await h.call('get_user');
    const stop = await guard(h, 'send', { to: 'bob@x.io', body: 'my passport is hgk 137803' });
    expect(stop && parts(stop)).toEqual({
      outcome: 'REJECTED',
      code: 'CONFIDENTIAL_VALUE_REFUSED',
      reason:
        'Argument [body] carries the confidential value HG•••••03 of a get_user result, which the user has not stated; a write may not carry confidential values',
      next: 'leave the confidential value of the get_user result out of argument [body], or have the user state it',
      message: expect.any(String) as unknown,
    });
  });

  it('finds values at any depth of an argument, numbers too, and names the first argument', async () => {
    const h = setup();
    await h.call('get_user');
    const stop = await guard(h, 'send', { to: 'bob@x.io', body: { lines: ['hello', 'balance: 1,250.00'] } });
    expect(stop?.reason).toMatch(
      /^Argument \[body\] carries the confidential value •••• of a get_user result/,
    );
  });

  it('lets a write through when the user stated the value', async () => {
    const h = setup('book it with my passport HGK 137803');
    await h.call('get_user');
    expect(await guard(h, 'send', { body: 'passport HGK137803' })).toBeNull();
  });

  it('lets reads through, and writes that carry nothing confidential', async () => {
    const h = setup();
    await h.call('get_user');
    expect(await guard(h, 'get_docs', { q: 'HGK137803' })).toBeNull();
    expect(await guard(h, 'send', { to: 'bob@x.io', body: 'Emma Johnson says hi' })).toBeNull();
  });

  it('a short confidential value is refused only as a whole word', async () => {
    const h = setup();
    await h.call('get_user');
    expect(await guard(h, 'send', { body: 'room 420' })).toBeNull();
    expect((await guard(h, 'send', { body: 'pin 42' }))?.errorCode).toBe('CONFIDENTIAL_VALUE_REFUSED');
  });

  it('passes every write before any confidential result is read', async () => {
    const h = setup();
    expect(await guard(h, 'send', { body: 'HGK137803' })).toBeNull();
  });
});
