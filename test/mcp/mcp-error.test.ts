import { describe, expect, it } from 'vitest';
import type { ToolDescriptor } from '../../src/domain/tool.js';
import { resolveToolNames } from '../../src/mcp/catalog.js';
import { expandEnvRefs } from '../../src/mcp/env-refs.js';
import {
  connectError,
  isConnectionLoss,
  McpError,
  recognise,
  type McpErrorCode,
} from '../../src/mcp/errors.js';

/** The MCP layer's errors: one class with a code and the data of its case. */

const NAMES: Record<McpErrorCode, string> = {
  CONNECT: 'McpConnectError',
  CATALOG: 'ToolCatalogError',
  MISSING_ENV: 'MissingEnvError',
  UNAUTHORIZED: 'McpUnauthorizedError',
  INCOMPATIBLE: 'McpIncompatibleError',
};

function tool(server: string, name: string): ToolDescriptor {
  return { name, description: '', inputSchema: { type: 'object' }, kind: 'mcp', server, remoteName: name };
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('McpError', () => {
  it.each(Object.entries(NAMES))('%s keeps the name its class had', (code, name) => {
    expect(new McpError(code as McpErrorCode, 'x').name).toBe(name);
  });

  it('CONNECT names the server and means unreachable, also as the cause of another error', () => {
    const error = connectError('cloud', 'cannot connect to MCP server cloud: ECONNREFUSED');
    expect(error).toMatchObject({ code: 'CONNECT', serverId: 'cloud' });
    expect(recognise(error)).toEqual({ kind: 'unreachable' });
    expect(isConnectionLoss(new Error('call failed', { cause: error }))).toBe(true);
    // The other codes are configuration, not a server gone away.
    expect(recognise(new McpError('MISSING_ENV', 'x'))).toEqual({ kind: 'unknown' });
  });

  it('CATALOG carries every conflict and unknown alias', () => {
    const error = thrown(() =>
      resolveToolNames(
        [
          { serverId: 'a', tools: [tool('a', 'ping')] },
          { serverId: 'b', tools: [tool('b', 'ping')] },
        ],
        { 'c.nope': 'x' },
      ),
    );
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: 'CATALOG',
      conflicts: [{ name: 'ping', sources: ['a.ping', 'b.ping'] }],
      unknownAliases: ['c.nope'],
    });
  });

  it('MISSING_ENV names the variable, never a value', () => {
    const error = thrown(() =>
      expandEnvRefs({ TOKEN: 'Bearer ${MCP_ERR_TEST_UNSET}' }, 'mcpServers.x.headers', {}),
    );
    expect(error).toMatchObject({
      code: 'MISSING_ENV',
      variable: 'MCP_ERR_TEST_UNSET',
      name: 'MissingEnvError',
    });
    expect((error as Error).message).toBe(
      'environment variable MCP_ERR_TEST_UNSET is not set (referenced by mcpServers.x.headers.TOKEN)',
    );
  });
});
