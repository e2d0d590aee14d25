import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  answeredByDefaults,
  askable,
  elicitationOf,
  serveElicitation,
  withSchemaDefaults,
  type ElicitingCall,
  type McpElicitAnswer,
  type McpElicitation,
} from '../../src/mcp/elicitation.js';
import type { Logger } from '../../src/log/logger.js';

/**
 * Elicitation without a server (docs/mcp.md, "Elicitation"): how a request's params are kept, how
 * defaults fill an answer, and what the connection's handler answers for each case, driven through a
 * stand-in client that only records the handler it is given.
 */

const SIZE_SCHEMA = {
  type: 'object',
  properties: { size: { type: 'string', default: 'M' }, gift: { type: 'boolean', default: false } },
  required: ['size'],
};

describe('elicitationOf', () => {
  it('keeps a form question with its schema, dropping unknown keys', () => {
    expect(
      elicitationOf({ mode: 'form', message: 'Pick a size', requestedSchema: SIZE_SCHEMA, extra: 1 }),
    ).toEqual({ mode: 'form', message: 'Pick a size', requestedSchema: SIZE_SCHEMA });
  });

  it('a question without a mode is a form, unless it carries a URL', () => {
    expect(elicitationOf({ message: 'm' })).toEqual({ mode: 'form', message: 'm' });
    expect(elicitationOf({ message: 'm', url: 'https://x.example/a', elicitationId: 'e1' })).toEqual({
      mode: 'url',
      message: 'm',
      url: 'https://x.example/a',
      elicitationId: 'e1',
    });
  });

  it('a URL question keeps no schema', () => {
    expect(
      elicitationOf({ mode: 'url', message: 'open', url: 'https://x.example', requestedSchema: SIZE_SCHEMA }),
    ).toEqual({ mode: 'url', message: 'open', url: 'https://x.example' });
  });

  it('an unknown mode is read as a form; fields of the wrong type are dropped or emptied', () => {
    expect(elicitationOf({ mode: 'voice', message: 7, requestedSchema: 'schema', elicitationId: 3 })).toEqual(
      {
        mode: 'form',
        message: '',
      },
    );
    expect(elicitationOf({ mode: 'url', message: 'm', url: 42 })).toEqual({ mode: 'url', message: 'm' });
  });
});

describe('withSchemaDefaults', () => {
  it('fills each property left out that has a default, keeping what the person gave', () => {
    expect(withSchemaDefaults(SIZE_SCHEMA, { size: 'L' })).toEqual({ size: 'L', gift: false });
    expect(withSchemaDefaults(SIZE_SCHEMA, {})).toEqual({ size: 'M', gift: false });
  });

  it('a property named like an inherited member (constructor, toString) is filled like any other', () => {
    const schema = {
      properties: { constructor: { default: 'x' }, toString: { default: 'y' } },
      required: ['constructor'],
    };
    expect(withSchemaDefaults(schema, {})).toEqual({ constructor: 'x', toString: 'y' });
    expect(withSchemaDefaults({ properties: { a: Object.create({ default: 1 }) as object } }, {})).toEqual(
      {},
    );
  });

  it('a field given as null or undefined counts as given', () => {
    expect(withSchemaDefaults(SIZE_SCHEMA, { size: null, gift: undefined })).toEqual({
      size: null,
      gift: undefined,
    });
  });

  it('a default of null or false is a default', () => {
    const schema = { properties: { note: { default: null }, ok: { default: false } } };
    expect(withSchemaDefaults(schema, {})).toEqual({ note: null, ok: false });
  });

  it('with no schema or no properties, a copy of the content', () => {
    const content = { a: 1 };
    const copy = withSchemaDefaults(undefined, content);
    expect(copy).toEqual({ a: 1 });
    expect(copy).not.toBe(content);
    expect(withSchemaDefaults({ properties: 'none' }, content)).toEqual({ a: 1 });
    expect(withSchemaDefaults({ properties: { a: null, b: 'x' } }, {})).toEqual({});
  });

  it('never changes the content it was given', () => {
    const content = { size: 'S' };
    withSchemaDefaults(SIZE_SCHEMA, content);
    expect(content).toEqual({ size: 'S' });
  });
});

describe('answeredByDefaults', () => {
  const form = (requestedSchema?: Record<string, unknown>): McpElicitation => ({
    mode: 'form',
    message: 'm',
    ...(requestedSchema ? { requestedSchema } : {}),
  });

  it('a form whose every required field has a default', () => {
    expect(answeredByDefaults(form(SIZE_SCHEMA))).toBe(true);
  });

  it('not when a required field has none, or is not among the properties', () => {
    expect(answeredByDefaults(form({ ...SIZE_SCHEMA, required: ['size', 'name'] }))).toBe(false);
    const noDefault = {
      properties: { size: { type: 'string' }, gift: { default: true } },
      required: ['size'],
    };
    expect(answeredByDefaults(form(noDefault))).toBe(false);
  });

  it('a form with no required field qualifies only when some field has a default', () => {
    expect(answeredByDefaults(form({ properties: { gift: { default: true } } }))).toBe(true);
    expect(answeredByDefaults(form({ properties: { gift: { type: 'boolean' } } }))).toBe(false);
    expect(answeredByDefaults(form({ properties: {} }))).toBe(false);
  });

  it('ignores a `required` that is not a list, and entries that are not names', () => {
    expect(answeredByDefaults(form({ properties: { a: { default: 1 } }, required: 'b' }))).toBe(true);
    expect(answeredByDefaults(form({ properties: { a: { default: 1 } }, required: ['a', 7] }))).toBe(true);
  });

  it('never a URL question', () => {
    expect(answeredByDefaults({ mode: 'url', message: 'm', requestedSchema: SIZE_SCHEMA })).toBe(false);
  });
});

type Handler = (request: { method: string; params: Record<string, unknown> }) => Promise<unknown>;

/** The handler serveElicitation registers, and the log lines it wrote. */
function served(
  calls: readonly ElicitingCall[],
  config: { elicitation?: 'ask' | 'defaults'; elicitationHoldSeconds?: number } = {},
): { ask: (params: Record<string, unknown>) => Promise<unknown>; logs: [string, string, unknown][] } {
  let handler: Handler | undefined;
  const client = {
    setRequestHandler(method: string, fn: Handler) {
      expect(method).toBe('elicitation/create');
      handler = fn;
    },
  } as unknown as Client;
  const logs: [string, string, unknown][] = [];
  const logger: Logger = {
    debug: (m, f) => logs.push(['debug', m, f]),
    info: (m, f) => logs.push(['info', m, f]),
    warn: (m, f) => logs.push(['warn', m, f]),
    error: (m, f) => logs.push(['error', m, f]),
  };
  serveElicitation(client, 'shop', () => calls, logger, config);
  return {
    ask: (params) => {
      if (!handler) throw new Error('no handler registered');
      return handler({ method: 'elicitation/create', params });
    },
    logs,
  };
}

function call(answer: McpElicitAnswer | null, hold?: ElicitingCall['hold']) {
  const stopped: McpElicitation[] = [];
  const asked: McpElicitation[] = [];
  const entry: ElicitingCall = {
    handler: (request) => {
      asked.push(request);
      return answer;
    },
    stop: (request) => stopped.push(request),
    ...(hold ? { hold } : {}),
  };
  return { entry, stopped, asked };
}

const FORM = { mode: 'form', message: 'Pick a size', requestedSchema: SIZE_SCHEMA };

describe('serveElicitation', () => {
  it('with no call in flight, answers cancel and says why', async () => {
    const { ask, logs } = served([]);
    expect(await ask(FORM)).toEqual({ action: 'cancel' });
    expect(logs).toEqual([
      ['warn', 'MCP elicitation answered cancel', { server: 'shop', why: 'no call in flight can be asked' }],
    ]);
  });

  it('with several calls in flight, answers cancel without asking either', async () => {
    const a = call({ action: 'accept', content: {} });
    const b = call({ action: 'accept', content: {} });
    const { ask, logs } = served([a.entry, b.entry]);
    expect(await ask(FORM)).toEqual({ action: 'cancel' });
    expect(a.asked).toEqual([]);
    expect(b.asked).toEqual([]);
    expect(logs[0]?.[2]).toEqual({ server: 'shop', why: 'several calls in flight' });
  });

  it('gives a stored form answer with the schema’s defaults filled in', async () => {
    const one = call({ action: 'accept', content: { size: 'L' } });
    const { ask } = served([one.entry]);
    expect(await ask(FORM)).toEqual({ action: 'accept', content: { size: 'L', gift: false } });
    expect(one.asked).toEqual([{ mode: 'form', message: 'Pick a size', requestedSchema: SIZE_SCHEMA }]);
    expect(one.stopped).toEqual([]);
  });

  it('a URL question accepted carries no content; a decline carries nothing but its action', async () => {
    const url = call({ action: 'accept', content: { ignored: true } });
    expect(await served([url.entry]).ask({ mode: 'url', message: 'open', url: 'https://x.example' })).toEqual(
      {
        action: 'accept',
      },
    );
    const decline = call({ action: 'decline', content: { size: 'L' } });
    expect(await served([decline.entry]).ask(FORM)).toEqual({ action: 'decline' });
  });

  it('no stored answer: the call is stopped with the question, and the server gets cancel', async () => {
    const one = call(null);
    expect(await served([one.entry]).ask(FORM)).toEqual({ action: 'cancel' });
    expect(one.stopped).toEqual([{ mode: 'form', message: 'Pick a size', requestedSchema: SIZE_SCHEMA }]);
  });

  it('with a hold configured, the question is held for that long and its answer given', async () => {
    const holds: number[] = [];
    const one = call(null, (_request, holdMs) => {
      holds.push(holdMs);
      return Promise.resolve({ action: 'accept', content: {} });
    });
    const { ask } = served([one.entry], { elicitationHoldSeconds: 2.5 });
    expect(await ask(FORM)).toEqual({ action: 'accept', content: { size: 'M', gift: false } });
    expect(holds).toEqual([2500]);
    expect(one.stopped).toEqual([]);
  });

  it('a hold that ends with no answer stops the call; no hold is tried without the setting', async () => {
    let held = 0;
    const hold = () => {
      held += 1;
      return Promise.resolve(null);
    };
    const timedOut = call(null, hold);
    expect(await served([timedOut.entry], { elicitationHoldSeconds: 1 }).ask(FORM)).toEqual({
      action: 'cancel',
    });
    expect(timedOut.stopped).toHaveLength(1);
    const unset = call(null, hold);
    expect(await served([unset.entry]).ask(FORM)).toEqual({ action: 'cancel' });
    expect(held).toBe(1);
  });

  it('`elicitation: defaults` accepts a form its defaults answer, asking no call', async () => {
    const one = call(null);
    const { ask, logs } = served([one.entry], { elicitation: 'defaults' });
    expect(await ask(FORM)).toEqual({ action: 'accept', content: { size: 'M', gift: false } });
    expect(one.asked).toEqual([]);
    expect(logs).toEqual([
      ['info', 'MCP elicitation accepted with its defaults', { server: 'shop', message: 'Pick a size' }],
    ]);
  });

  it('`elicitation: defaults` still asks when the defaults do not answer the form', async () => {
    const one = call({ action: 'accept', content: { name: 'Ann' } });
    const schema = { properties: { name: { type: 'string' } }, required: ['name'] };
    const { ask } = served([one.entry], { elicitation: 'defaults' });
    expect(await ask({ message: 'Name?', requestedSchema: schema })).toEqual({
      action: 'accept',
      content: { name: 'Ann' },
    });
    expect(one.asked).toHaveLength(1);
  });
});

describe('askable', () => {
  const question: McpElicitation = { mode: 'form', message: 'Pick a size' };

  it('without a handler, runs the request with the caller’s signal and registers nothing', async () => {
    const calls = new Set<ElicitingCall>();
    const signal = new AbortController().signal;
    let given: AbortSignal | undefined;
    const outcome = await askable(calls, undefined, signal, (s) => {
      given = s;
      expect(calls.size).toBe(0);
      return Promise.resolve('ok');
    });
    expect(outcome).toEqual({ result: 'ok' });
    expect(given).toBe(signal);
  });

  it('with a handler, the call is registered while it runs and removed after', async () => {
    const calls = new Set<ElicitingCall>();
    const outcome = await askable(
      calls,
      () => null,
      undefined,
      () => {
        expect(calls.size).toBe(1);
        return Promise.resolve(7);
      },
    );
    expect(outcome).toEqual({ result: 7 });
    expect(calls.size).toBe(0);
  });

  it('stopped for a question: the request is aborted and resolves to the question', async () => {
    const calls = new Set<ElicitingCall>();
    const outcome = await askable(
      calls,
      () => null,
      undefined,
      (signal) => {
        const [entry] = [...calls];
        entry?.stop(question);
        expect(signal?.aborted).toBe(true);
        return Promise.reject(signal?.reason as Error);
      },
    );
    expect(outcome).toEqual({ asked: question });
    expect(calls.size).toBe(0);
  });

  it('a result that arrives after the stop is not used: the question is', async () => {
    const calls = new Set<ElicitingCall>();
    const outcome = await askable(
      calls,
      () => null,
      undefined,
      () => {
        [...calls][0]?.stop(question);
        return Promise.resolve('done without the answer');
      },
    );
    expect(outcome).toEqual({ asked: question });
  });

  it('an error is rethrown when no question stopped the call, or when the caller aborted too', async () => {
    const calls = new Set<ElicitingCall>();
    await expect(
      askable(
        calls,
        () => null,
        undefined,
        () => Promise.reject(new Error('boom')),
      ),
    ).rejects.toThrow('boom');
    expect(calls.size).toBe(0);
    const caller = new AbortController();
    caller.abort();
    await expect(
      askable(
        calls,
        () => null,
        caller.signal,
        () => {
          [...calls][0]?.stop(question);
          return Promise.reject(new Error('cancelled by the run'));
        },
      ),
    ).rejects.toThrow('cancelled by the run');
  });

  it('the caller’s abort reaches the request through the combined signal', async () => {
    const calls = new Set<ElicitingCall>();
    const caller = new AbortController();
    const outcome = await askable(
      calls,
      () => null,
      caller.signal,
      (signal) => {
        expect(signal).not.toBe(caller.signal);
        caller.abort();
        return Promise.resolve(signal?.aborted);
      },
    );
    expect(outcome).toEqual({ result: true });
  });
});
