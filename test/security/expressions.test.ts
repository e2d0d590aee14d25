import { describe, expect, it } from 'vitest';
import { evaluate, ExpressionError } from '../../src/tools/expressions.js';

/**
 * A tenant's admin froze the server with an inline flow whose edge `when` recursed forever
 * (`$f := function($x){ $f($x + 1) }`): JSONata ran without bound, /healthz stopped answering and
 * SIGTERM was ignored. Every flow expression now runs within a time, depth and sequence budget (the
 * same `when` through the HTTP API: expression-sandbox.test.ts).
 */

const BOMBS = [
  '($f := function($x){ $f($x + 1) }; $f(0)) > 0',
  '($f := function($x){ $x > 1e9 ? $x : $f($x + 1) }; $f(0)) > 0',
  '$count([1..10000000]) > 0',
  '$count([1..900000].([1..900000])) > 0',
];

describe('flow expressions are bounded', () => {
  it('fail an endless or huge expression with an expression error, quickly', async () => {
    for (const bomb of BOMBS) {
      const started = Date.now();
      const error = await evaluate(bomb, {}).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, bomb).toBeInstanceOf(ExpressionError);
      expect(Date.now() - started, bomb).toBeLessThan(5_000);
    }
    expect(await evaluate('$count([1..1000])', {})).toBe(1000);
  });
});
