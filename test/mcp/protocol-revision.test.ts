import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { isFlowError } from '../../src/flow/problems.js';
import type { McpServerConfig } from '../../src/domain/flow.js';
import { versionNegotiation } from '../../src/mcp/session-setup.js';

const http = (extra: Partial<McpServerConfig> = {}) =>
  ({ url: 'http://127.0.0.1:1/mcp', ...extra }) as McpServerConfig;
const stdio = (extra: Partial<McpServerConfig> = {}) =>
  ({ command: 'my-server', args: [], ...extra }) as McpServerConfig;

const flowWith = (server: Record<string, unknown>) => ({
  id: 'rev',
  mcpServers: { s: server },
  nodes: [{ id: 'main' }],
});

describe('the protocol revision of an MCP server entry', () => {
  it('probes HTTP servers with server/discover and keeps stdio servers on the 2025 handshake by default', () => {
    expect(versionNegotiation(http())).toEqual({ mode: 'auto' });
    expect(versionNegotiation(stdio())).toEqual({ mode: 'legacy' });
  });

  it('follows the entry: auto, legacy or one pinned revision', () => {
    expect(versionNegotiation(stdio({ protocol: 'auto' }))).toEqual({ mode: 'auto' });
    expect(versionNegotiation(http({ protocol: 'legacy' }))).toEqual({ mode: 'legacy' });
    expect(versionNegotiation(http({ protocol: '2026-07-28' }))).toEqual({ mode: { pin: '2026-07-28' } });
  });

  it('accepts the key in a flow and refuses anything else, naming it', async () => {
    const loaded = await loadFlow(
      flowWith({ url: 'http://127.0.0.1:1/mcp', protocol: '2026-07-28' }) as never,
    );
    expect(loaded.flow.mcpServers?.s).toMatchObject({ protocol: '2026-07-28' });
    const error = await loadFlow(
      flowWith({ url: 'http://127.0.0.1:1/mcp', protocol: 'newest' }) as never,
    ).catch((e: unknown) => e);
    expect(isFlowError(error)).toBe(true);
    expect((error as Error).message).toMatch(/mcpServers\.s\.protocol/);
  });
});
