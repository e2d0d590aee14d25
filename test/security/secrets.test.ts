import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log/logger.js';
import { expandEnvRefs } from '../../src/mcp/env-refs.js';
import { McpError } from '../../src/mcp/errors.js';
import { stdioLaunch } from '../../src/mcp/transport.js';
import { scriptedModel } from '../../src/model/scripted.js';
import { createRuntime } from '../../src/runtime/create.js';
import { DEMO_SERVER, demoDataDir } from '../helpers/demo-server.js';

/**
 * Hole 5: the database was world-readable and stored MCP server `env` values (secrets) in plain
 * text. Now SQLite files are created 0600 in a 0700 folder, and a flow names secrets by `${VAR}`,
 * resolved from the process environment only when the MCP server starts.
 */

const SECRET = 'sk-live-CANARY-51b2d7e0';
const saved = { ...process.env };
afterAll(() => {
  for (const key of ['SEC_TEST_TOKEN', 'SEC_TEST_DATA']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (message: string, fields?: object) =>
    void lines.push(
      `${level} ${message} ${JSON.stringify(fields ?? {}, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`,
    );
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

describe('secrets', () => {
  it('creates the SQLite database 0600 in a 0700 folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sec-db-'));
    const runtime = createRuntime({
      store: `sqlite:${join(root, 'state', 'deep', 'runtime.db')}`,
      logger: false,
    });
    await runtime.db();
    await runtime.close();
    expect(statSync(join(root, 'state')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'state', 'deep')).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(join(root, 'state', 'deep')))
      expect(statSync(join(root, 'state', 'deep', name)).mode & 0o777, name).toBe(0o600);
  });

  it('resolves ${VAR} in env only at start, and stores, logs and traces the reference, never the value', async () => {
    const dataDir = demoDataDir();
    process.env.SEC_TEST_TOKEN = SECRET;
    process.env.SEC_TEST_DATA = dataDir;
    const root = mkdtempSync(join(tmpdir(), 'sec-env-'));
    const lines: string[] = [];
    const runtime = createRuntime({
      store: `sqlite:${join(root, 'runtime.db')}`,
      logger: recordingLogger(lines),
    });
    const flow = {
      id: 'env-refs',
      locale: 'en' as const,
      mcpServers: {
        cloud: {
          command: 'node',
          args: [DEMO_SERVER],
          env: { DEMO_CLOUD_DATA: '${SEC_TEST_DATA}', API_TOKEN: 'Bearer ${SEC_TEST_TOKEN}' },
        },
      },
      nodes: [{ id: 'main', tools: ['space_list'] }],
    };
    const model = scriptedModel({
      turns: [
        { calls: [{ tool: 'space_list', args: {} }] },
        { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
      ],
    });
    const summary = await runtime.start(flow, { input: { text: 'x' }, model });
    expect(summary.status).toBe('completed');
    const events = [];
    for await (const event of runtime.events(summary.runId)) events.push(event);
    const record = await (await runtime.db()).getRun(summary.runId);
    await runtime.close();
    // The demo server used the folder the reference named: it was resolved when it started.
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);
    expect(JSON.stringify(record?.flow)).toContain('Bearer ${SEC_TEST_TOKEN}');
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(lines.join('\n')).not.toContain(SECRET);
    for (const name of readdirSync(root))
      expect(readFileSync(join(root, name)).includes(SECRET), name).toBe(false);
    expect(existsSync(join(root, 'runtime.db'))).toBe(true);
  });

  it('names a missing variable (not a value) and puts resolved values only in the child environment', () => {
    expect(() => expandEnvRefs({ A: '${SEC_TEST_MISSING_VAR}' }, 'mcpServers.x.env', {})).toThrow(
      expect.objectContaining({ code: 'MISSING_ENV', variable: 'SEC_TEST_MISSING_VAR' }) as McpError,
    );
    expect(() => expandEnvRefs({ A: '${SEC_TEST_MISSING_VAR}' }, 'mcpServers.x.env', {})).toThrow(
      /SEC_TEST_MISSING_VAR is not set/,
    );
    const config = { command: 'node', args: [], env: { T: 'x-${SEC_TEST_TOKEN}-y', L: 'plain $HOME' } };
    process.env.SEC_TEST_TOKEN = SECRET;
    expect(stdioLaunch(config, '/').env).toMatchObject({ T: `x-${SECRET}-y`, L: 'plain $HOME' });
    expect(config.env.T).toBe('x-${SEC_TEST_TOKEN}-y');
  });
});
