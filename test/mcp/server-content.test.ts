import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  MAX_LISTED_RESOURCES,
  MAX_PROMPT_CHARS,
  completeArgument,
  getPromptText,
  listServerPrompts,
  listServerResources,
  requester,
} from '../../src/mcp/server-content.js';
import type { McpConnection, McpListOptions } from '../../src/mcp/types.js';

/**
 * What the runtime asks a server besides tools (docs/mcp.md, "Resources, prompts and completions"),
 * against a stand-in connection whose `request` hands a scripted client to the function: what comes
 * back is cut to the fields read, and bounded.
 */

interface Scripted {
  capabilities?: Record<string, unknown>;
  resources?: unknown[];
  templates?: unknown[];
  prompts?: unknown[];
  messages?: unknown[];
  completion?: Record<string, unknown>;
}

/** A connection whose client answers from `script`, recording what it was asked and the options passed. */
function connection(script: Scripted) {
  const asked: { method: string; params?: unknown; options?: unknown }[] = [];
  const client = {
    getServerCapabilities: () => script.capabilities,
    listResources: (params: unknown, options: unknown) => {
      asked.push({ method: 'resources/list', params, options });
      return Promise.resolve({ resources: script.resources ?? [] });
    },
    listResourceTemplates: (params: unknown, options: unknown) => {
      asked.push({ method: 'resources/templates/list', params, options });
      return Promise.resolve({ resourceTemplates: script.templates ?? [] });
    },
    listPrompts: (params: unknown, options: unknown) => {
      asked.push({ method: 'prompts/list', params, options });
      return Promise.resolve({ prompts: script.prompts ?? [] });
    },
    getPrompt: (params: unknown, options: unknown) => {
      asked.push({ method: 'prompts/get', params, options });
      return Promise.resolve({ messages: script.messages ?? [] });
    },
    complete: (params: unknown, options: unknown) => {
      asked.push({ method: 'completion/complete', params, options });
      return Promise.resolve({ completion: script.completion ?? { values: [] } });
    },
  } as unknown as Client;
  const given: (McpListOptions | undefined)[] = [];
  const conn = {
    serverId: 'docs',
    request: <T>(use: (c: Client, o: { timeout?: number }) => Promise<T>, options?: McpListOptions) => {
      given.push(options);
      return use(client, { timeout: options?.timeoutMs ?? 0 });
    },
  } as unknown as McpConnection;
  return { conn, asked, given };
}

describe('requester', () => {
  it('refuses a connection that cannot make requests, naming its server', () => {
    const conn = { serverId: 'legacy' } as unknown as McpConnection;
    expect(() => requester(conn)).toThrow('MCP connection legacy cannot make requests');
  });
});

describe('listServerResources', () => {
  it('a server without the resources capability has none, and is not asked', async () => {
    const { conn, asked } = connection({ capabilities: { tools: {} }, resources: [{ uri: 'x', name: 'x' }] });
    expect(await listServerResources(conn)).toEqual({ resources: [], templates: [] });
    expect(asked).toEqual([]);
  });

  it('keeps the fields read, leaving out empty ones and unknown keys', async () => {
    const { conn } = connection({
      capabilities: { resources: {} },
      resources: [
        {
          uri: 'file:///a.md',
          name: 'a',
          title: 'A',
          description: 'About A',
          mimeType: 'text/markdown',
          size: 12,
          annotations: { audience: ['user'] },
          secret: 'x',
        },
        { uri: 'file:///b.md', name: 'b', title: '', description: '', size: '12' },
      ],
      templates: [{ uriTemplate: 'file:///{name}', name: 'file', mimeType: 'text/plain', extra: true }],
    });
    expect(await listServerResources(conn)).toEqual({
      resources: [
        {
          uri: 'file:///a.md',
          name: 'a',
          title: 'A',
          description: 'About A',
          mimeType: 'text/markdown',
          size: 12,
          annotations: { audience: ['user'] },
        },
        { uri: 'file:///b.md', name: 'b' },
      ],
      templates: [{ uriTemplate: 'file:///{name}', name: 'file', mimeType: 'text/plain' }],
    });
  });

  it(`lists at most ${MAX_LISTED_RESOURCES} of each and says it cut them`, async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ uri: `r:${i}`, name: `r${i}` }));
    const exact = connection({ capabilities: { resources: {} }, resources: many(MAX_LISTED_RESOURCES) });
    const listing = await listServerResources(exact.conn);
    expect(listing.resources).toHaveLength(100);
    expect(listing).not.toHaveProperty('truncated');
    const over = connection({ capabilities: { resources: {} }, resources: many(101) });
    const cut = await listServerResources(over.conn);
    expect(cut.resources).toHaveLength(100);
    expect(cut.resources.at(-1)?.uri).toBe('r:99');
    expect(cut.truncated).toBe(true);
    const templates = Array.from({ length: 101 }, (_, i) => ({ uriTemplate: `t:{${i}}`, name: `t${i}` }));
    expect(
      (await listServerResources(connection({ capabilities: { resources: {} }, templates }).conn)).truncated,
    ).toBe(true);
  });

  it('cuts a long description to 300 characters, counting characters not UTF-16 units', async () => {
    const long = '📄'.repeat(400);
    const { conn } = connection({
      capabilities: { resources: {} },
      resources: [{ uri: 'u', name: 'n', description: long }],
    });
    const [resource] = (await listServerResources(conn)).resources;
    expect([...(resource?.description ?? '')]).toHaveLength(300);
    expect(resource?.description).toBe(`${'📄'.repeat(299)}…`);
    const exact = connection({
      capabilities: { resources: {} },
      resources: [{ uri: 'u', name: 'n', description: 'd'.repeat(300) }],
    });
    expect((await listServerResources(exact.conn)).resources[0]?.description).toBe('d'.repeat(300));
  });

  it('passes the timeout and signal on to the connection', async () => {
    const { conn, given, asked } = connection({ capabilities: { resources: {} } });
    const signal = new AbortController().signal;
    await listServerResources(conn, { timeoutMs: 1500, signal });
    expect(given).toEqual([{ timeoutMs: 1500, signal }]);
    expect(asked.map((a) => a.options)).toEqual([{ timeout: 1500 }, { timeout: 1500 }]);
  });
});

describe('getPromptText', () => {
  it('asks for the prompt with a copy of the arguments', async () => {
    const { conn, asked } = connection({ messages: [] });
    const args = { topic: 'refunds' };
    await getPromptText(conn, 'triage', args);
    expect(asked[0]?.params).toEqual({ name: 'triage', arguments: { topic: 'refunds' } });
    expect((asked[0]?.params as { arguments: unknown }).arguments).not.toBe(args);
  });

  it('one paragraph per message: text, embedded text resources, and other content named by type', async () => {
    const { conn } = connection({
      messages: [
        { role: 'user', content: { type: 'text', text: 'You triage tickets.' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'r', text: 'Policy: be kind.' } } },
        { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'r', blob: 'AAAA' } } },
      ],
    });
    expect(await getPromptText(conn, 'triage', {})).toBe(
      'You triage tickets.\n\nPolicy: be kind.\n\n[image]\n\n[resource]',
    );
  });

  it('an empty prompt is the empty text', async () => {
    expect(await getPromptText(connection({ messages: [] }).conn, 'p', {})).toBe('');
  });

  it(`cuts the text at ${MAX_PROMPT_CHARS} characters with an ellipsis`, async () => {
    const exact = connection({
      messages: [{ role: 'user', content: { type: 'text', text: 'a'.repeat(MAX_PROMPT_CHARS) } }],
    });
    expect(await getPromptText(exact.conn, 'p', {})).toHaveLength(MAX_PROMPT_CHARS);
    const over = connection({
      messages: [{ role: 'user', content: { type: 'text', text: 'a'.repeat(MAX_PROMPT_CHARS + 5) } }],
    });
    const text = await getPromptText(over.conn, 'p', {});
    expect(text).toHaveLength(MAX_PROMPT_CHARS);
    expect(text.endsWith('a…')).toBe(true);
  });

  it('counts characters, not UTF-16 units, and cuts on whole characters (never half a pair)', async () => {
    const under = connection({
      messages: [{ role: 'user', content: { type: 'text', text: '📄'.repeat(15_000) } }],
    });
    expect(await getPromptText(under.conn, 'p', {})).toBe('📄'.repeat(15_000));
    const over = connection({
      messages: [{ role: 'user', content: { type: 'text', text: '📄'.repeat(25_000) } }],
    });
    expect(await getPromptText(over.conn, 'p', {})).toBe(`${'📄'.repeat(MAX_PROMPT_CHARS - 1)}…`);
  });
});

describe('completeArgument', () => {
  it('a server without the completions capability suggests nothing and is not asked', async () => {
    const { conn, asked } = connection({ capabilities: {}, completion: { values: ['x'] } });
    expect(await completeArgument(conn, { type: 'prompt', name: 'p' }, { name: 'a', value: '' })).toEqual({
      values: [],
    });
    expect(asked).toEqual([]);
  });

  it('names a prompt by `ref/prompt` and a template by `ref/resource`, with the context only when given', async () => {
    const { conn, asked } = connection({ capabilities: { completions: {} } });
    await completeArgument(conn, { type: 'prompt', name: 'triage' }, { name: 'topic', value: 're' });
    await completeArgument(
      conn,
      { type: 'template', uri: 'file:///{dir}/{name}' },
      { name: 'name', value: 'a' },
      { dir: 'docs' },
    );
    expect(asked.map((a) => a.params)).toEqual([
      { ref: { type: 'ref/prompt', name: 'triage' }, argument: { name: 'topic', value: 're' } },
      {
        ref: { type: 'ref/resource', uri: 'file:///{dir}/{name}' },
        argument: { name: 'name', value: 'a' },
        context: { arguments: { dir: 'docs' } },
      },
    ]);
  });

  it('keeps at most 100 values, and total and hasMore only when the server typed them', async () => {
    const values = Array.from({ length: 120 }, (_, i) => `v${i}`);
    const { conn } = connection({
      capabilities: { completions: {} },
      completion: { values, total: 120, hasMore: true },
    });
    const completion = await completeArgument(conn, { type: 'prompt', name: 'p' }, { name: 'a', value: '' });
    expect(completion.values).toHaveLength(100);
    expect(completion.values.at(-1)).toBe('v99');
    expect(completion).toMatchObject({ total: 120, hasMore: true });
    const loose = connection({
      capabilities: { completions: {} },
      completion: { values: ['a'], total: '9', hasMore: 'yes' },
    });
    expect(
      await completeArgument(loose.conn, { type: 'prompt', name: 'p' }, { name: 'a', value: '' }),
    ).toEqual({
      values: ['a'],
    });
  });
});

describe('listServerPrompts', () => {
  it('a server without the prompts capability has none', async () => {
    expect(await listServerPrompts(connection({ capabilities: {}, prompts: [{ name: 'x' }] }).conn)).toEqual(
      [],
    );
  });

  it('keeps each prompt’s name, title, description and arguments, `required` only when true', async () => {
    const { conn } = connection({
      capabilities: { prompts: {} },
      prompts: [
        {
          name: 'triage',
          title: 'Triage',
          description: 'Sort a ticket',
          arguments: [
            { name: 'topic', description: 'What it is about', required: true },
            { name: 'tone', required: false },
            { name: 'lang', description: '' },
          ],
          icons: [],
        },
        { name: 'bare' },
      ],
    });
    expect(await listServerPrompts(conn)).toEqual([
      {
        name: 'triage',
        title: 'Triage',
        description: 'Sort a ticket',
        arguments: [
          { name: 'topic', description: 'What it is about', required: true },
          { name: 'tone' },
          { name: 'lang' },
        ],
      },
      { name: 'bare', arguments: [] },
    ]);
  });

  it(`lists at most ${MAX_LISTED_RESOURCES} prompts`, async () => {
    const prompts = Array.from({ length: 130 }, (_, i) => ({ name: `p${i}` }));
    const listed = await listServerPrompts(connection({ capabilities: { prompts: {} }, prompts }).conn);
    expect(listed).toHaveLength(100);
    expect(listed.at(-1)?.name).toBe('p99');
  });
});
