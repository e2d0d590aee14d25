import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketTools } from '../server/fixtures.js';
import { reached, tempDir } from '../server/helpers.js';
import { QUICK_TURNS, SEC, errorOf, quickFlow, startTarget, type Target } from './helpers.js';

/**
 * Hole 3: flows were one registry for all tenants, so beta's admin replaced acme's flow. Now flows
 * are registered per tenant, shared flows come from admins without tenant, and a tenant's own flow
 * shadows a shared one for that tenant only.
 */

let t: Target;
let scripts: string;
const tools = ticketTools();

beforeAll(async () => {
  scripts = await tempDir({ 'quick.yaml': QUICK_TURNS });
  const flowsDir = await tempDir({
    'site.yaml':
      'id: site-builder\nversion: 1\nlocale: en\nmodel: scripted:./turns.yaml\nnodes: [{ id: main, tools: [ticket_list] }]\n',
    'turns.yaml': QUICK_TURNS,
  });
  t = await startTarget({ flowsDir, runtime: { tools: tools.tools }, server: { scriptedModels: scripts } });
});
afterAll(async () => {
  await t.stop();
});

function register(token: string, flow: object): Promise<Response> {
  return t.call('POST', '/v1/flows', { token, json: flow });
}

async function listed(
  token: string,
): Promise<{ flowId: string; version: string; tenant?: string; path?: string }[]> {
  return (await (await t.call('GET', '/v1/flows', { token })).json()) as never;
}

async function versionRun(token: string, flowId: string): Promise<string | undefined> {
  const response = await t.call('POST', '/v1/runs', { token, json: { flowId, input: 'x' } });
  expect(response.status).toBe(201);
  const { runId } = (await response.json()) as { runId: string };
  await reached(t.runtime, runId, 'run.completed');
  return (await (await t.runtime.db()).getRun(runId))?.flowVersion;
}

describe('flows per tenant', () => {
  it("keeps one tenant's admin from replacing another tenant's flow", async () => {
    expect((await register(SEC.acmeAdmin, quickFlow('site-builder', 7))).status).toBe(201);
    expect((await register(SEC.betaAdmin, quickFlow('site-builder', 666))).status).toBe(201);
    expect(await versionRun(SEC.acmeOperator, 'site-builder')).toBe('7');
    expect(await versionRun(SEC.betaOperator, 'site-builder')).toBe('666');
    // The shared flow is untouched for everyone else.
    expect(await versionRun(SEC.operator, 'site-builder')).toBe('1');
    expect((await listed(SEC.acmeViewer)).map((f) => [f.flowId, f.version, f.tenant])).toEqual([
      ['site-builder', 7, 'acme'],
    ]);
    expect((await listed(SEC.viewer)).map((f) => [f.flowId, f.version, f.tenant])).toEqual([
      ['site-builder', 1, undefined],
    ]);
  });

  it('lets an admin without tenant manage shared flows, seen by every tenant that has no own flow of that id', async () => {
    expect((await register(SEC.admin, quickFlow('shared-one', 3))).status).toBe(201);
    expect(await versionRun(SEC.acmeOperator, 'shared-one')).toBe('3');
    expect(await versionRun(SEC.betaOperator, 'shared-one')).toBe('3');
    expect((await register(SEC.betaAdmin, quickFlow('beta-only', 1))).status).toBe(201);
    const acme = await t.call('POST', '/v1/runs', {
      token: SEC.acmeOperator,
      json: { flowId: 'beta-only', input: 'x' },
    });
    expect(await errorOf(acme)).toMatchObject({ status: 404, code: 'FLOW_NOT_FOUND' });
    expect((await listed(SEC.acmeViewer)).map((f) => f.flowId)).not.toContain('beta-only');
  });

  it('shows server paths to instance admins only', async () => {
    const forAdmin = (await listed(SEC.admin)).find((f) => f.flowId === 'site-builder');
    expect(forAdmin?.path).toMatch(/site\.yaml$/);
    for (const token of [SEC.viewer, SEC.operator, SEC.acmeAdmin, SEC.acmeViewer]) {
      const text = JSON.stringify(await listed(token));
      expect(text).not.toContain('"path"');
      expect(text).not.toContain('site.yaml');
    }
  });

  it('keeps runs, events and approvals of one tenant from another', async () => {
    const started = await t.call('POST', '/v1/runs', {
      token: SEC.betaOperator,
      json: { flowId: 'site-builder', input: 'x' },
    });
    const { runId } = (await started.json()) as { runId: string };
    for (const token of [SEC.acmeAdmin, SEC.acmeOperator, SEC.acmeViewer]) {
      expect((await t.call('GET', `/v1/runs/${runId}`, { token })).status).toBe(404);
      expect((await t.call('GET', `/v1/runs/${runId}/events?after=0`, { token })).status).toBe(404);
      const runs = (await (await t.call('GET', '/v1/runs', { token })).json()) as { runId: string }[];
      expect(runs.map((r) => r.runId)).not.toContain(runId);
    }
    expect((await t.call('POST', `/v1/runs/${runId}/cancel`, { token: SEC.acmeAdmin })).status).toBe(404);
  });
});
