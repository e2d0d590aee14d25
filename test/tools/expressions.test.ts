import { describe, expect, it, vi } from 'vitest';
import { AgentRuntimeError } from '../../src/domain/agent-runtime-error.js';
import {
  compileExpression,
  evaluate,
  evaluateCondition,
  evaluateMap,
  EXPRESSION_LIMITS,
  ExpressionError,
  slowRegexes,
  truthy,
} from '../../src/tools/expressions.js';

// Direct tests of src/tools/expressions.ts (in process; the sandboxed path has its own suites).

/** The ExpressionError a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<ExpressionError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error('expected an ExpressionError');
}

describe('compileExpression', () => {
  it('compiles once per text: the same text gives the same compiled expression', () => {
    const a = compileExpression('data.items[0].name');
    expect(compileExpression('data.items[0].name')).toBe(a);
    expect(compileExpression('data.items[1].name')).not.toBe(a);
  });

  it('a syntax error is an ExpressionError COMPILE naming the expression, with the cause', () => {
    let error: unknown;
    try {
      compileExpression('a.(b');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect(error).toBeInstanceOf(AgentRuntimeError);
    const e = error as ExpressionError;
    expect(e.code).toBe('COMPILE');
    expect(e.name).toBe('ExpressionError');
    expect(e.expression).toBe('a.(b');
    expect(e.message.startsWith('JSONata expression "a.(b": ')).toBe(true);
    expect(e.cause).toBeDefined();
  });

  it('a failed compilation is not cached: the next call throws again', () => {
    expect(() => compileExpression('$$$(')).toThrow(ExpressionError);
    expect(() => compileExpression('$$$(')).toThrow(ExpressionError);
  });
});

describe('evaluate', () => {
  const input = {
    data: [
      { id: 'a', n: 1, tags: ['x'] },
      { id: 'b', n: 2, tags: ['y', 'z'] },
    ],
    empty: [],
    nothing: null,
  };

  it('returns plain JSON: result sequences as arrays, a single match as the value itself', async () => {
    const ids = await evaluate('data.id', input);
    expect(ids).toEqual(['a', 'b']);
    expect(Array.isArray(ids)).toBe(true);
    expect(Object.getPrototypeOf(ids)).toBe(Array.prototype);
    expect(await evaluate('data[id="b"].n', input)).toBe(2);
    expect(await evaluate('data.tags', input)).toEqual(['x', 'y', 'z']);
    expect(await evaluate('$sum(data.n)', input)).toBe(3);
    expect(await evaluate('{"k": data[0].id}', input)).toEqual({ k: 'a' });
  });

  it('undefined for no match; null and empty arrays as they stand', async () => {
    expect(await evaluate('missing.path', input)).toBeUndefined();
    expect(await evaluate('data[id="zzz"]', input)).toBeUndefined();
    expect(await evaluate('nothing', input)).toBeNull();
    expect(await evaluate('empty', input)).toEqual([]);
  });

  it('a function in the result is no JSON value: left out, as JSON leaves out functions', async () => {
    expect(await evaluate('function($x){ $x }', {})).toBeUndefined();
    expect(await evaluate('[1, function($x){$x}]', {})).toEqual([1, null]);
    expect(await evaluate('{"a": 1, "f": function($x){$x}}', {})).toEqual({ a: 1 });
    expect(await evaluate('{"a": 1, "f": function($x){$x}}', {}, { sandboxed: true })).toEqual({ a: 1 });
  });

  it('evaluates over scalars and undefined input', async () => {
    expect(await evaluate('$ * 2', 21)).toBe(42);
    expect(await evaluate('$', 'text')).toBe('text');
    expect(await evaluate('a', undefined)).toBeUndefined();
  });

  it('an evaluation error is an ExpressionError EVALUATE naming the expression', async () => {
    const e = await failure(evaluate('$number(a) + 1', { a: 'x' }));
    expect(e.code).toBe('EVALUATE');
    expect(e.expression).toBe('$number(a) + 1');
    expect(e.message).toMatch(/^JSONata expression "\$number\(a\) \+ 1": /);
  });

  it('a syntax error rejects as COMPILE', async () => {
    expect((await failure(evaluate('[1,2', {}))).code).toBe('COMPILE');
  });

  it('adds the time the evaluation took to a meter, a failed one too', async () => {
    // The clock evaluate reads (JSONata reads one too, for its own time budget: it sees a frozen one).
    const ticks = [1000, 1030, 2000, 2007];
    vi.spyOn(Date, 'now').mockImplementation(() =>
      new Error().stack?.includes('jsonata') === true ? 0 : (ticks.shift() ?? 0),
    );
    const meter = { ms: 5 };
    await evaluate('1 + 1', {}, { meter });
    expect(meter.ms).toBe(35);
    await failure(evaluate('$number("x") + 1', {}, { meter }));
    expect(meter.ms).toBe(42);
    expect(ticks).toEqual([]);
  });
});

describe('EXPRESSION_LIMITS', () => {
  it('are 250 ms, 200 nested steps and sequences of 1,000,000', () => {
    expect(EXPRESSION_LIMITS).toEqual({ timeout: 250, stack: 200, sequence: 1_000_000 });
  });

  it('an endless recursion fails the expression instead of holding the process', async () => {
    const e = await failure(evaluate('($f := function($n){ $f($n + 1) }; $f(0))', {}));
    expect(e.code).toBe('EVALUATE');
  });

  it('a range over the sequence bound fails; one under it does not', async () => {
    expect((await failure(evaluate('[1..2000000]', {}))).code).toBe('EVALUATE');
    expect(await evaluate('$count([1..1000])', {})).toBe(1000);
  });
});

describe('truthy ($boolean rules)', () => {
  it('false for undefined, null, false, 0, "", empty arrays and objects', () => {
    expect([undefined, null, false, 0, -0, '', [], {}].map(truthy)).toEqual(Array(8).fill(false));
  });

  it('true for other scalars and non-empty objects; an array when any member is', () => {
    expect([true, 1, -1, 0.5, 'x', ' ', 'false', { a: 0 }].map(truthy)).toEqual(Array(8).fill(true));
    expect(truthy([0, '', null, [false]])).toBe(false);
    expect(truthy([0, [0, [1]]])).toBe(true);
  });

  it('false for values JSON has not: functions and symbols', () => {
    expect(truthy(() => true)).toBe(false);
    expect(truthy(Symbol('x'))).toBe(false);
  });
});

describe('evaluateCondition', () => {
  it('casts the result with $boolean rules', async () => {
    const input = { verify: { data: { status: 'ACTIVE' } }, list: [0, 0], zero: 0 };
    expect(await evaluateCondition("verify.data.status = 'ACTIVE'", input)).toBe(true);
    expect(await evaluateCondition("verify.data.status = 'CREATING'", input)).toBe(false);
    expect(await evaluateCondition('missing', input)).toBe(false);
    expect(await evaluateCondition('list', input)).toBe(false);
    expect(await evaluateCondition('zero', input)).toBe(false);
    expect(await evaluateCondition('verify', input)).toBe(true);
  });

  it('rethrows evaluation errors', async () => {
    expect((await failure(evaluateCondition('$number("x") > 0', {}))).code).toBe('EVALUATE');
  });
});

describe('evaluateMap', () => {
  it('evaluates each expression over the same input, leaving out undefined results', async () => {
    const input = { result: { data: { siteId: 's1', list: [1, 2] } }, args: { name: 'n' } };
    expect(
      await evaluateMap(
        {
          siteId: 'result.data.siteId',
          name: 'args.name',
          list: 'result.data.list',
          none: 'nope',
          nil: 'null',
        },
        input,
      ),
    ).toStrictEqual({ siteId: 's1', name: 'n', list: [1, 2], nil: null }); // no `none` key at all
  });

  it('an empty map is an empty object; a failing expression rejects the whole map', async () => {
    expect(await evaluateMap({}, {})).toEqual({});
    const e = await failure(evaluateMap({ ok: '1', bad: '$number("x") + 1' }, {}));
    expect(e.expression).toBe('$number("x") + 1');
  });
});

describe('slowRegexes', () => {
  it('is empty for an expression without regexes or with linear ones', () => {
    expect(slowRegexes('data[status="ok"].id')).toEqual([]);
    expect(slowRegexes('$match(name, /^[a-z]+$/)')).toEqual([]);
    expect(slowRegexes('$contains(name, /(a+)+$/)')).toEqual([]);
  });

  it('names a regex that cannot run in linear time, with the reason', () => {
    const [backreference, ...none] = slowRegexes('$match(a, /(x)\\1/)');
    expect(none).toEqual([]);
    expect(backreference).toMatch(
      /^regex "\(x\)\\\\1" cannot be run in linear time: it uses a backreference, a lookahead, a lookbehind or a counted repetition above 16; /,
    );
    expect(slowRegexes('$contains(b, /abc/i)')).toEqual([
      'regex "abc" cannot be run in linear time: it is case-insensitive (flag i); flows sent over HTTP may use only regexes that can (write [aA] instead of flag i, x+ with maxLength instead of x{1,64})',
    ]);
  });

  it('walks the whole tree past undefined fields (a call node has name: undefined)', () => {
    expect(slowRegexes('$match(b, /(x)\\1/) and $uppercase(a)')).toHaveLength(1);
    expect(slowRegexes('$match(a, /(x)\\1/) and $contains(b, /abc/i)')).toHaveLength(2);
  });

  it('finds regexes nested inside functions and predicates', () => {
    expect(slowRegexes('items[$contains(name, /a(?=b)/)].id')).toHaveLength(1);
    expect(slowRegexes('function($s){ $replace($s, /x{1,64}/, "") }')).toHaveLength(1);
  });

  it('throws COMPILE for a syntax error', () => {
    expect(() => slowRegexes('$match(a, /x/')).toThrow(ExpressionError);
    try {
      slowRegexes('(');
    } catch (error) {
      expect((error as ExpressionError).code).toBe('COMPILE');
    }
  });
});
