import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';
import { providerSetup } from '../providers/play.js';
import { flow, makeRuntime, toolKit } from './helpers.js';

/**
 * A steering message after a tool result is a request the real providers take: the strict stand-ins
 * (which refuse what the real service refuses) accept it, and it carries the person's words.
 */
describe('steering through strict provider stand-ins', () => {
  const runtimes: Runtime[] = [];
  const fakes: StrictFake[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });

  for (const kind of ['anthropic', 'openai', 'qwen'] as const) {
    it(`${kind}: the words follow the tool result of the round before, as the user's`, async () => {
      const fake = await startStrictFake(
        kind,
        (i) =>
          i === 0
            ? { calls: [{ id: 'c1', name: 'builtin_node_follow_up', args: '{"question":"Which card?"}' }] }
            : { calls: [{ id: 'c2', name: 'builtin_node_finish', args: '{"summary":"done"}' }] },
        `sk-${kind}-test`,
      );
      fakes.push(fake);
      const { model, env } = providerSetup(kind, fake.url, fake.key, false);
      const runtime = makeRuntime(toolKit(), { env });
      runtimes.push(runtime);
      const loaded = await flow({ model, nodes: [{ id: 'work', tools: ['lookup'] }] });
      const suspended = await runtime.start(loaded, { input: { text: 'refund me' } });
      expect(suspended.status).toBe('suspended');
      await runtime.say(suspended.runId, 'and send the receipt by e-mail');
      const done = await runtime.answer(suspended.runId, 'the first one');
      expect(fake.refusals()).toEqual([]);
      expect(done.status).toBe('completed');
      const second = fake.requests[1]?.text ?? '';
      expect(second).toContain('and send the receipt by e-mail');
      expect(second.indexOf('the first one')).toBeLessThan(second.indexOf('and send the receipt by e-mail'));
    });
  }
});
