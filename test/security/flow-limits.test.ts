import { afterEach, describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/serve.js';
import { UsageError } from '../../src/cli/args.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { quietLogger } from '../server/helpers.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * Issue 13, lower holes: uploaded flows are kept in memory (~2.7 MB per 1 MB upload) and a tenant's
 * admin could upload flows of new ids forever. Each tenant (and the shared flows) may now hold at
 * most `--max-flows` uploaded flows and `--max-flow-bytes` of their text; beyond is 409 FLOW_LIMIT.
 */

const flow = (id: string, padding = '') => ({
  id,
  version: 1,
  locale: 'en',
  description: `flow ${id}${padding}`,
  nodes: [{ id: 'main' }],
});

let t: Target | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

async function target(limits: { maxFlows?: number; maxBytes?: number }): Promise<Target> {
  t = await startTarget({ server: { flows: new FlowRegistry({ limits }) } });
  return t;
}

describe('limits of uploaded flows', () => {
  it('refuses a new flow id beyond --max-flows per tenant with 409 FLOW_LIMIT; replacing one still works', async () => {
    const s = await target({ maxFlows: 2 });
    const upload = (token: string, id: string) => s.call('POST', '/v1/flows', { token, json: flow(id) });
    expect((await upload(SEC.acmeAdmin, 'a')).status).toBe(201);
    expect((await upload(SEC.acmeAdmin, 'b')).status).toBe(201);
    const refused = await errorOf(await upload(SEC.acmeAdmin, 'c'));
    expect(refused.status).toBe(409);
    expect(refused.code).toBe('FLOW_LIMIT');
    expect(refused.message).toMatch(/tenant acme .*2 uploaded flows.*--max-flows/);
    // The same id replaces: the count does not grow.
    expect((await upload(SEC.acmeAdmin, 'b')).status).toBe(201);
    // Other tenants and the shared flows have their own allowance.
    expect((await upload(SEC.betaAdmin, 'c')).status).toBe(201);
    expect((await upload(SEC.admin, 'c')).status).toBe(201);
    expect((await upload(SEC.admin, 'd')).status).toBe(201);
    expect((await errorOf(await upload(SEC.admin, 'e'))).code).toBe('FLOW_LIMIT');
    const listed = (await (await s.call('GET', '/v1/flows', { token: SEC.acmeViewer })).json()) as {
      flowId: string;
    }[];
    expect(listed.map((f) => f.flowId)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('refuses an upload that would take a tenant over --max-flow-bytes', async () => {
    const s = await target({ maxBytes: 4000 });
    const upload = (id: string, size: number) =>
      s.call('POST', '/v1/flows', { token: SEC.acmeAdmin, json: flow(id, 'x'.repeat(size)) });
    expect((await upload('a', 1500)).status).toBe(201);
    expect((await upload('b', 1500)).status).toBe(201);
    const refused = await errorOf(await upload('c', 1500));
    expect([refused.status, refused.code]).toEqual([409, 'FLOW_LIMIT']);
    expect(refused.message).toMatch(/--max-flow-bytes/);
    // Replacing a flow counts its new size instead of the old one.
    expect((await upload('b', 100)).status).toBe(201);
    expect((await upload('c', 1500)).status).toBe(201);
    // One document larger than the whole allowance is refused before it is parsed.
    expect((await errorOf(await upload('d', 5000))).code).toBe('FLOW_LIMIT');
  });

  it('has sane defaults, and serve takes --max-flows and --max-flow-bytes', async () => {
    expect(new FlowRegistry().limits).toEqual({ maxFlows: 1000, maxBytes: 16 * 1024 * 1024 });
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    let printed!: (url: string) => void;
    const listening = new Promise<string>((resolve) => (printed = resolve));
    const done = runServe(['--port', '0', '--db', 'memory', '--max-flows', '1'], {
      out: (text) => printed(text.trim()),
      stopped: () => stopped,
      logger: quietLogger,
    });
    const url = Promise.race([
      listening,
      done.then((code) => Promise.reject(new Error(`serve ended with ${code} before listening`))),
    ]);
    const post = async (id: string) =>
      fetch(`${await url}/v1/flows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(flow(id)),
      });
    expect((await post('a')).status).toBe(201);
    expect((await post('b')).status).toBe(409);
    stop();
    expect(await done).toBe(0);
    for (const argv of [
      ['--max-flows', '0'],
      ['--max-flows', 'many'],
      ['--max-flow-bytes', '1k'],
    ]) {
      const error = await runServe(['--port', '0', '--db', 'memory', ...argv], {
        out: () => undefined,
        stopped: () => Promise.resolve(),
        logger: quietLogger,
      }).catch((e: unknown) => e);
      expect(error, argv.join(' ')).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(new RegExp(`${argv[0] ?? ''} must be a positive number`));
    }
  });
});
