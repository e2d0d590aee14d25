import { describe, expect, it } from 'vitest';
import type { CallInput } from '../../src/tools/call.js';

/**
 * A call's stages read the run and change it only through their change log: the types say so, checked
 * by `npm run typecheck` (each `@ts-expect-error` below must stay an error). Writes deeper inside a
 * record are held by test/docs/house.test.ts.
 */
export function writesThatDoNotCompile(ctx: CallInput): void {
  // @ts-expect-error the run is read-only in a call's stages
  ctx.run.inFlight = [];
  // @ts-expect-error the node run too
  ctx.node.gatedCall = null;
  // @ts-expect-error a call's log takes no loop change: it has no loop position
  ctx.changes.record({ kind: 'wave', wave: null });
  // @ts-expect-error nor the loop's stall count
  ctx.changes.record({ kind: 'stall' });
}

describe('the types of a call input', () => {
  it('are checked by the type check (this file compiles only while each write above is refused)', () => {
    expect(writesThatDoNotCompile).toBeTypeOf('function');
  });
});
