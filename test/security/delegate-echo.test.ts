import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * Issue 39, finding 7 (path echoes): a flow sent over HTTP whose delegate is a flow file with
 * problems heard the file's name shortened to the flows folder when the path it wrote went through
 * that folder (`../<folder>/sub/bad.yaml` came back as `sub/bad.yaml`), while any other path came back
 * as written: guesses of the folder's path could be checked one prefix at a time. Now every delegate
 * is echoed as written.
 */

// A flow-shaped file with a problem of its own (an edge to a node it does not have).
const BAD = 'id: bad\nlocale: en\nnodes: [{ id: a }]\nedges: [{ from: a, to: nowhere }]\n';

let target: Target;
let flowsDir: string;

beforeAll(async () => {
  flowsDir = await tempDir({ 'sub/bad.yaml': BAD });
  target = await startTarget({ flowsDir });
}, 300_000);
afterAll(async () => {
  await target.stop();
});

async function problemsFor(delegate: string): Promise<string[]> {
  const flow = {
    id: 'parent',
    locale: 'en',
    model: 'openai:gpt-4.1',
    nodes: [{ id: 'main', delegates: [delegate] }],
  };
  const response = await target.call('POST', '/v1/flows', { token: SEC.admin, json: flow });
  expect(response.status, delegate).toBe(400);
  return ((await response.json()) as { error: { problems: string[] } }).error.problems;
}

describe('delegate paths in the answers to flows sent over HTTP', () => {
  it('are echoed as written, whether the path goes through the flows folder or not', async () => {
    const folder = flowsDir.split('/').at(-1) as string;
    for (const delegate of ['sub/bad.yaml', `../${folder}/sub/bad.yaml`, `./sub/../sub/bad.yaml`]) {
      const problems = await problemsFor(delegate);
      const own = problems.filter((p) => p.includes('nowhere'));
      expect(own, delegate).toHaveLength(1);
      expect(own[0]?.startsWith(`${delegate}:`), own[0]).toBe(true);
      expect(problems.join('\n')).not.toContain(flowsDir);
    }
  });
});
