import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refundFlow } from '../../examples/code-flow/flow.js';
import { createRuntime, loadFlow, scriptedModel } from '../../src/index.js';
import { REPO_ROOT } from '../helpers/demo-server.js';

/** The example of docs/flows.md, "Flows in code": the page shows examples/code-flow/flow.ts, which tsc compiles. */
describe('docs/flows.md "Flows in code"', () => {
  const runtime = createRuntime({ store: 'memory', logger: false });
  afterAll(() => runtime.close());

  it('shows examples/code-flow/flow.ts as it is (with the package name)', () => {
    const page = readFileSync(join(REPO_ROOT, 'docs/flows.md'), 'utf8');
    const section = page.slice(page.indexOf('## Flows in code'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    const file = readFileSync(join(REPO_ROOT, 'examples/code-flow/flow.ts'), 'utf8');
    expect(block).toBe(file.replace("from '../../src/index.js'", "from 'g2rain-agent-runtime'"));
  });

  it('runs: a small total takes the function edge straight to the refund, a large one goes to review', async () => {
    const loaded = await loadFlow(refundFlow);
    const small = await runtime.start(loaded, {
      input: { lines: [20, 30] },
      model: scriptedModel({ turns: [] }),
    });
    expect(small.status).toBe('completed');
    expect(small.outputs).toEqual({ total: { amount: 50 }, refund: { refunded: 50 } });
    // A scripted model without turns fails the model node: enough to see where the run went.
    const large = await runtime.start(loaded, {
      input: { lines: [200] },
      model: scriptedModel({ turns: [] }),
    });
    expect(large.status).toBe('failed');
    expect(large.failedNode).toBe('review');
    expect(large.outputs).toEqual({ total: { amount: 200 } });
  });
});
