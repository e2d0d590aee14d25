import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMcpConnection } from '../../src/mcp/connection.js';
import { startCancelServer, until } from '../helpers/cancel-server.js';

describe('cancellation over Streamable HTTP', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('an aborted call tells the server even when the connection is closed right after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cancel-http-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = await startCancelServer(dir);
    cleanups.push(() => server.stop());
    const connection = openMcpConnection({ serverId: 'slow', config: { url: server.url }, baseDir: dir });
    const controller = new AbortController();
    const call = connection.callTool(
      'wait',
      { ms: 20_000 },
      { timeoutMs: 30_000, signal: controller.signal },
    );
    await until(() => server.entries().some((e) => e.event === 'started'), 'the call to start');
    controller.abort(new Error('run cancelled'));
    await expect(call).rejects.toThrow();
    // Closed at once, as the CLI does when the call ended its run: close waits for the cancellation.
    await connection.close();
    await until(
      () => server.entries().some((e) => e.event === 'cancelled'),
      'the server to see the cancel',
      5_000,
    );
    expect(server.entries().map((e) => e.event)).toEqual(['started', 'cancelled']);
  });
});
