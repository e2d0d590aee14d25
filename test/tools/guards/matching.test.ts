import { describe, expect, it } from 'vitest';
import {
  deepMatches,
  echoes,
  normalise,
  occursIn,
  saidByUser,
  scalarEquals,
} from '../../../src/tools/matching.js';
import {
  compileExpression,
  evaluate,
  evaluateCondition,
  evaluateMap,
  ExpressionError,
  truthy,
} from '../../../src/tools/expressions.js';

describe('normalise', () => {
  it('folds case and full/half width, removes white space; punctuation only on request', () => {
    expect(normalise('  Ｗｅｂ　Site １２ ')).toBe('website12');
    expect(normalise('官网，好吗？')).toBe('官网,好吗?');
    expect(normalise('官网，好吗？「x」', { punctuation: true })).toBe('官网好吗x');
    expect(normalise('a-b_c!', { punctuation: true })).toBe('abc');
  });
});

describe('scalar and structural matching (parameter contracts)', () => {
  it('scalars are equal after normalisation — equality, not containment', () => {
    expect(scalarEquals('1', 1)).toBe(true);
    expect(scalarEquals('ＳＰ_1', 'sp_1')).toBe(true);
    expect(scalarEquals('sp_1', 'sp_10')).toBe(false);
    expect(scalarEquals(null, 'null')).toBe(false);
    expect(scalarEquals(true, 'TRUE')).toBe(true);
  });

  it('a scalar occurs when it equals a scalar leaf; an object or array must deep-match a sub-tree', () => {
    const payload = {
      code: 0,
      data: [
        { spaceId: 'sp_1', quota: 10 },
        { spaceId: 'sp_2', quota: 5 },
      ],
    };
    expect(occursIn('sp_2', payload)).toBe(true);
    expect(occursIn('sp', payload)).toBe(false);
    expect(occursIn('10', payload)).toBe(true);
    expect(occursIn({ spaceId: 'sp_1', quota: '10' }, payload)).toBe(true);
    expect(occursIn({ spaceId: 'sp_1' }, payload)).toBe(false);
    expect(occursIn(payload.data, payload)).toBe(true);
    expect(occursIn(['sp_1'], payload)).toBe(false);
    expect(deepMatches([1, 2], [2, 1])).toBe(false);
  });

  it('user words: normalised containment; numbers only at digit boundaries', () => {
    const said = ['帮我在默认空间建一个叫「官网」的站点，配额 10 个', '用 Pro 套餐'];
    expect(saidByUser('官网', said)).toBe(true);
    expect(saidByUser('pro', said)).toBe(true);
    expect(saidByUser('ＰＲＯ', said)).toBe(true);
    expect(saidByUser(10, said)).toBe(true);
    expect(saidByUser('10', said)).toBe(true);
    expect(saidByUser(1, said)).toBe(false);
    expect(saidByUser(0, said)).toBe(false);
    expect(saidByUser(10, ['价格 10.5 元'])).toBe(false);
    expect(saidByUser(10, ['共 100 个'])).toBe(false);
    expect(saidByUser(10, ['v10版'])).toBe(true);
    expect(saidByUser('博客', said)).toBe(false);
    expect(saidByUser('', said)).toBe(false);
  });

  it('an echo is a question (without punctuation) contained in what the user said', () => {
    expect(echoes('官网？', ['建一个叫官网的站点'])).toBe(true);
    expect(echoes('站点名称是官网吗？', ['建一个叫官网的站点'])).toBe(false);
    expect(echoes('？！', ['x'])).toBe(false);
  });
});

describe('JSONata helpers', () => {
  it('evaluates paths over arrays as plain JSON, conditions with $boolean rules', async () => {
    const payload = { data: [{ spaceId: 'sp_1' }, { spaceId: 'sp_2' }] };
    expect(await evaluate('data.spaceId', payload)).toEqual(['sp_1', 'sp_2']);
    expect(await evaluate('data[spaceId="sp_9"]', payload)).toBeUndefined();
    expect(
      await evaluateCondition('$count(verify.data[name = $$.args.name]) > 0', {
        args: { name: 'a' },
        verify: { data: [{ name: 'a' }] },
      }),
    ).toBe(true);
    expect(
      await evaluateMap(
        { siteId: 'result.data.siteId', none: 'result.nothing' },
        { result: { data: { siteId: 's' } } },
      ),
    ).toEqual({ siteId: 's' });
    expect(truthy([])).toBe(false);
    expect(truthy([0, 'x'])).toBe(true);
    expect(truthy({})).toBe(false);
  });

  it('throws ExpressionError naming the expression for syntax and evaluation errors', async () => {
    expect(() => compileExpression('data[')).toThrow(ExpressionError);
    await expect(evaluate('$number(a) + 1', { a: 'x' })).rejects.toThrow(/\$number\(a\) \+ 1/);
  });
});
