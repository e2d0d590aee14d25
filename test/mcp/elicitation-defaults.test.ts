import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { openMcpConnection } from '../../src/mcp/connection.js';
import { answeredByDefaults, type McpElicitation } from '../../src/mcp/elicitation.js';
import type { McpConnection } from '../../src/mcp/types.js';
import { inMemoryTransport } from '../helpers/in-memory-mcp.js';

/**
 * `elicitation: defaults` on a server entry (docs/mcp.md, "Elicitation"): a form whose every required
 * field has a default is accepted with the defaults on the server's first request, through the real
 * SDK client and server over the in-memory pair; any other question still goes to the person.
 */

const COMPLETE = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'Ada' },
    count: { type: 'integer', default: 3 },
    note: { type: 'string' },
  },
  required: ['name'],
} as const;
const MISSING = {
  type: 'object',
  properties: { name: { type: 'string' }, count: { type: 'integer', default: 3 } },
  required: ['name'],
} as const;

/** A server whose tool `ask` asks the client with `schema` and returns the answer as JSON text. */
function asking(schema: object): () => McpServer {
  return () => {
    const server = new McpServer({ name: 'asker', version: '1.0.0' });
    server.registerTool('ask', { description: 'Asks the person' }, async (ctx) => {
      const answer = await ctx.mcpReq.elicitInput({
        mode: 'form',
        message: 'Confirm the defaults?',
        requestedSchema: schema as never,
      });
      return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }] };
    });
    return server;
  };
}

let connection: McpConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

function connect(schema: object, elicitation?: 'ask' | 'defaults'): McpConnection {
  connection = openMcpConnection({
    serverId: 'asker',
    config: { command: 'unused', args: [], ...(elicitation ? { elicitation } : {}) },
    baseDir: process.cwd(),
    transport: inMemoryTransport(asking(schema)),
  });
  return connection;
}

/** The person has not answered: the run would suspend with the question. */
const unanswered = () => null;

describe('elicitation: defaults', () => {
  it('accepts a form whose required fields all have defaults on the first request', async () => {
    const result = await connect(COMPLETE, 'defaults').callTool(
      'ask',
      {},
      { timeoutMs: 10_000, onElicit: unanswered },
    );
    expect(result.elicitation).toBeUndefined();
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).toEqual({ action: 'accept', content: { name: 'Ada', count: 3 } });
  });

  it('asks the person when a required field has no default', async () => {
    const result = await connect(MISSING, 'defaults').callTool(
      'ask',
      {},
      { timeoutMs: 10_000, onElicit: unanswered },
    );
    expect(result.elicitation).toMatchObject({ mode: 'form', message: 'Confirm the defaults?' });
  });

  it('asks the person without the setting (ask is the default)', async () => {
    const result = await connect(COMPLETE).callTool('ask', {}, { timeoutMs: 10_000, onElicit: unanswered });
    expect(result.elicitation).toMatchObject({ mode: 'form' });
  });

  it('answers only forms with a default for every required field', () => {
    const form = (requestedSchema?: Record<string, unknown>): McpElicitation => ({
      mode: 'form',
      message: 'm',
      ...(requestedSchema ? { requestedSchema } : {}),
    });
    expect(answeredByDefaults(form(COMPLETE))).toBe(true);
    expect(answeredByDefaults(form(MISSING))).toBe(false);
    expect(answeredByDefaults(form({ type: 'object', properties: { a: { type: 'string' } } }))).toBe(false);
    expect(answeredByDefaults(form())).toBe(false);
    expect(answeredByDefaults({ mode: 'url', message: 'open', url: 'https://example.com' })).toBe(false);
  });
});
