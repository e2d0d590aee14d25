import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, ENV_SERVER, PROBE_TURNS, probeOfRun, until } from '../helpers/env-probe.js';
import { tempDir } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * MCP connections of flows sent over HTTP were kept for ever, one per distinct server config: a tenant's
 * admin sending many distinct inline flows (allowed `--allow-stdio node`) left one live server process
 * per flow, long after the runs ended. Now a tenant holds at most `maxMcpConnections`
 * (`--max-mcp-connections`) and an idle connection is closed after `mcpIdleMs` (`--mcp-idle-ms`).
 */

const CAP = 2;

let capped: Target;
let idle: Target;

beforeAll(async () => {
  const scripts = await tempDir({ 'probe.yaml': PROBE_TURNS });
  const server = { scriptedModels: scripts, allowStdio: ['node'], allowStdioEnv: ['TAG'] };
  capped = await startTarget({ server, runtime: { maxMcpConnections: CAP } });
  idle = await startTarget({ server, runtime: { mcpIdleMs: 200 } });
}, 60_000);
afterAll(async () => {
  await capped.stop();
  await idle.stop();
});

/** An inline flow whose one stdio server is distinct for each `tag` (its env is part of the config). */
function probeFlow(tag: string): Record<string, unknown> {
  return {
    id: `probe-${tag}`,
    version: 1,
    locale: 'en',
    model: 'scripted:probe.yaml',
    mcpServers: { p: { command: 'node', args: [ENV_SERVER], env: { TAG: tag } } },
    nodes: [{ id: 'main', tools: ['env_probe'] }],
  };
}

/** Runs an inline flow to its end and returns the pid of the MCP server process its call reached. */
async function probePid(target: Target, token: string, tag: string): Promise<number> {
  const started = await target.call('POST', '/v1/runs', {
    token,
    json: { input: 'x', flow: probeFlow(tag) },
  });
  expect(started.status, await started.clone().text()).toBe(201);
  const { runId } = (await started.json()) as { runId: string };
  return (await probeOfRun(target.runtime, runId)).pid;
}

describe('MCP server processes started for flows sent over HTTP', () => {
  it('never exceed the per-tenant limit, however many distinct flows a tenant sends', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      seen.push(await probePid(capped, SEC.admin, `flow-${i}`));
      expect(seen.filter(alive).length).toBeLessThanOrEqual(CAP);
    }
    expect(new Set(seen).size).toBe(6);
    // Another tenant has a limit of its own, and its runs close none of the first tenant's servers.
    const before = seen.filter(alive);
    const acme: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      acme.push(await probePid(capped, SEC.acmeAdmin, `acme-${i}`));
      expect(acme.filter(alive).length).toBeLessThanOrEqual(CAP);
    }
    expect(before.every(alive)).toBe(true);
  }, 60_000);

  it('end once their connection has been idle for mcpIdleMs; a later run starts a new one', async () => {
    const pids: number[] = [];
    for (let i = 0; i < 3; i += 1) pids.push(await probePid(idle, SEC.acmeAdmin, `idle-${i}`));
    expect(await until(() => !pids.some(alive), 10_000)).toBe(true);
    const again = await probePid(idle, SEC.acmeAdmin, 'idle-0');
    expect(pids).not.toContain(again);
    expect(alive(again)).toBe(true);
  }, 60_000);
});
