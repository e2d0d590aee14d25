import { describe, expect, it } from 'vitest';
import { nodeSupported, nodeVersionProblem } from '../../src/node-version.js';

describe('the Node version every entry point requires', () => {
  it('is 22.13+ on the 22 line, 23.4+ on the 23 line, any 24 or newer', () => {
    const supported = ['22.13.0', '22.20.1', '23.4.0', '24.0.0', '24.21.0', '26.1.0'];
    const unsupported = ['20.20.2', '21.7.3', '22.12.0', '22.5.1', '23.3.0', '18.0.0', 'garbage'];
    expect(supported.filter(nodeSupported)).toEqual(supported);
    expect(unsupported.filter(nodeSupported)).toEqual([]);
  });

  it('is explained in one line naming the required and the found version', () => {
    expect(nodeVersionProblem('24.0.0')).toBeNull();
    expect(nodeVersionProblem('20.20.2')).toBe(
      'g2rain-agent-runtime requires Node.js 22.13 or newer (found 20.20.2); please upgrade Node.js.',
    );
  });
});
