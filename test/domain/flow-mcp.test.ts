import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  HttpServerSchema,
  McpAuthSchema,
  McpIdpSchema,
  McpRootSchema,
  McpServerSchema,
  NodePromptSchema,
  StartersSchema,
  StdioServerSchema,
} from '../../src/domain/flow-mcp.js';

/**
 * The `mcpServers` entries of the flow format (docs/flows.md "mcpServers", docs/mcp.md): stdio and
 * HTTP servers, their shared behaviour keys, OAuth settings, roots, and a node's prompt and starters.
 */

function messages(schema: z.ZodType, data: unknown): string[] {
  const parsed = schema.safeParse(data);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

const ok = (schema: z.ZodType, data: unknown): boolean => schema.safeParse(data).success;

describe('a stdio server', () => {
  it('needs a command and defaults args to an empty list', () => {
    expect(StdioServerSchema.parse({ command: 'npx' })).toEqual({ command: 'npx', args: [] });
    expect(ok(StdioServerSchema, { command: '' })).toBe(false);
    expect(ok(StdioServerSchema, { args: ['x'] })).toBe(false);
  });

  it('takes env, inheritEnv, cwd and connectTimeoutMs as documented', () => {
    const entry = {
      command: 'npx',
      args: ['-y', 'server'],
      env: { DATA: './.data' },
      inheritEnv: false,
      cwd: '..',
      connectTimeoutMs: 10_000,
    };
    expect(StdioServerSchema.parse(entry)).toEqual(entry);
    expect(ok(StdioServerSchema, { command: 'npx', env: { N: 1 } })).toBe(false);
    expect(ok(StdioServerSchema, { command: 'npx', args: [1] })).toBe(false);
    expect(ok(StdioServerSchema, { command: 'npx', connectTimeoutMs: 0 })).toBe(false);
    expect(ok(StdioServerSchema, { command: 'npx', connectTimeoutMs: 1.5 })).toBe(false);
  });

  it('has no url, headers, auth or allowHosts (those are HTTP keys)', () => {
    for (const key of ['url', 'headers', 'auth', 'allowHosts'])
      expect(ok(StdioServerSchema, { command: 'npx', [key]: {} }), key).toBe(false);
  });
});

describe('an HTTP server', () => {
  it('needs an absolute url', () => {
    expect(HttpServerSchema.parse({ url: 'http://127.0.0.1:8931/mcp' })).toEqual({
      url: 'http://127.0.0.1:8931/mcp',
    });
    expect(ok(HttpServerSchema, { url: '/mcp' })).toBe(false);
    expect(ok(HttpServerSchema, { url: 'not a url' })).toBe(false);
    expect(ok(HttpServerSchema, {})).toBe(false);
  });

  it('takes headers, auth, allowHosts and connectTimeoutMs', () => {
    const entry = {
      url: 'https://mcp.example/mcp',
      headers: { Authorization: 'Bearer x' },
      allowHosts: ['mcp.example', '127.0.0.1:8931'],
      connectTimeoutMs: 500,
    };
    expect(HttpServerSchema.parse(entry)).toEqual(entry);
    expect(ok(HttpServerSchema, { ...entry, allowHosts: [''] })).toBe(false);
    expect(ok(HttpServerSchema, { ...entry, headers: { a: 1 } })).toBe(false);
  });

  it('has no command, args, env, inheritEnv or cwd (those are stdio keys)', () => {
    for (const key of ['command', 'args', 'env', 'inheritEnv', 'cwd'])
      expect(ok(HttpServerSchema, { url: 'https://mcp.example/mcp', [key]: 'x' }), key).toBe(false);
  });
});

describe('the keys both kinds share', () => {
  const both = [
    ['stdio', StdioServerSchema, { command: 'npx' }],
    ['http', HttpServerSchema, { url: 'https://mcp.example/mcp' }],
  ] as const;

  it.each(both)('%s: trustReadOnlyHint, sampling, roots, elicitation and logLevel', (_kind, schema, base) => {
    expect(
      ok(schema, {
        ...base,
        trustReadOnlyHint: false,
        sampling: true,
        roots: [{ uri: 'file:///srv/data', name: 'data' }],
        elicitation: 'defaults',
        logLevel: 'warning',
      }),
    ).toBe(true);
    expect(ok(schema, { ...base, elicitation: 'never' })).toBe(false);
    expect(ok(schema, { ...base, logLevel: 'trace' })).toBe(false);
    expect(ok(schema, { ...base, sampling: 'yes' })).toBe(false);
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
      expect(ok(schema, { ...base, logLevel: level }), level).toBe(true);
  });

  it.each(both)('%s: protocol is auto, legacy or a dated revision', (_kind, schema, base) => {
    for (const protocol of ['auto', 'legacy', '2026-07-28', '2025-06-18'])
      expect(ok(schema, { ...base, protocol }), protocol).toBe(true);
    for (const protocol of ['latest', '2026-7-28', '20260728', '2026-07-28x', ''])
      expect(ok(schema, { ...base, protocol }), protocol).toBe(false);
  });

  it.each(both)('%s: elicitationHoldSeconds is a whole number from 0 to 3600', (_kind, schema, base) => {
    const hold = (value: unknown) => ok(schema, { ...base, elicitationHoldSeconds: value });
    expect([0, 30, 3600].map(hold)).toEqual([true, true, true]);
    expect([-1, 3601, 2.5, '30'].map(hold)).toEqual([false, false, false, false]);
  });
});

describe('roots', () => {
  it('are file:// URIs with an optional name', () => {
    expect(McpRootSchema.parse({ uri: 'file:///home/me' })).toEqual({ uri: 'file:///home/me' });
    expect(messages(McpRootSchema, { uri: 'https://example.com' })).toEqual(['uri: expected a file:// URI']);
    expect(messages(McpRootSchema, { uri: '/home/me' })).toEqual(['uri: expected a file:// URI']);
    expect(ok(McpRootSchema, { uri: 'file:///x', label: 'x' })).toBe(false);
  });
});

describe('McpServerSchema', () => {
  it('accepts either kind', () => {
    expect(McpServerSchema.parse({ command: 'npx' })).toEqual({ command: 'npx', args: [] });
    expect(McpServerSchema.parse({ url: 'https://mcp.example/mcp' })).toEqual({
      url: 'https://mcp.example/mcp',
    });
  });

  it('describes both kinds when a value is neither', () => {
    const expected = [
      ': expected a stdio server {command, args?, env?, inheritEnv?, cwd?} or an HTTP server {url, headers?}',
    ];
    expect(messages(McpServerSchema, 'npx server')).toEqual(expected);
    expect(messages(McpServerSchema, {})).toEqual(expected);
  });

  it('refuses an entry mixing both kinds', () => {
    expect(ok(McpServerSchema, { command: 'npx', url: 'https://mcp.example/mcp' })).toBe(false);
  });
});

describe('auth', () => {
  it('defaults grant to authorization_code', () => {
    expect(McpAuthSchema.parse({})).toEqual({ grant: 'authorization_code' });
  });

  it('takes the four grants only', () => {
    expect(ok(McpAuthSchema, { grant: 'client_credentials', clientId: 'c', clientSecret: 's' })).toBe(true);
    expect(ok(McpAuthSchema, { grant: 'password' })).toBe(false);
    expect(ok(McpAuthSchema, { grant: 'implicit' })).toBe(false);
  });

  it('cross_app_access needs idp and clientId', () => {
    const idp = { issuer: 'https://idp.example', clientId: 'rt', idToken: '${ID_TOKEN}' };
    expect(ok(McpAuthSchema, { grant: 'cross_app_access', idp, clientId: 'c' })).toBe(true);
    const message = ': grant cross_app_access needs `idp` and `clientId` (with `clientSecret`)';
    expect(messages(McpAuthSchema, { grant: 'cross_app_access', clientId: 'c' })).toEqual([message]);
    expect(messages(McpAuthSchema, { grant: 'cross_app_access', idp })).toEqual([message]);
  });

  it('jwt_bearer needs clientId and exactly one of assertion and assertionFile', () => {
    const message = ': grant jwt_bearer needs `clientId` and one of `assertion` or `assertionFile`';
    expect(ok(McpAuthSchema, { grant: 'jwt_bearer', clientId: 'c', assertion: '${JWT}' })).toBe(true);
    expect(ok(McpAuthSchema, { grant: 'jwt_bearer', clientId: 'c', assertionFile: '/var/run/jwt' })).toBe(
      true,
    );
    expect(messages(McpAuthSchema, { grant: 'jwt_bearer', clientId: 'c' })).toEqual([message]);
    expect(messages(McpAuthSchema, { grant: 'jwt_bearer', assertion: 'x' })).toEqual([message]);
    expect(
      messages(McpAuthSchema, {
        grant: 'jwt_bearer',
        clientId: 'c',
        assertion: 'x',
        assertionFile: '/var/run/jwt',
      }),
    ).toEqual([message]);
  });

  it('assertion and assertionFile belong to jwt_bearer only', () => {
    const message = ': `assertion` and `assertionFile` belong to grant jwt_bearer';
    expect(messages(McpAuthSchema, { assertion: 'x' })).toEqual([message]);
    expect(messages(McpAuthSchema, { grant: 'client_credentials', assertionFile: '/jwt' })).toEqual([
      message,
    ]);
  });

  it('assertionFile must be absolute, assertion non-empty', () => {
    expect(messages(McpAuthSchema, { grant: 'jwt_bearer', clientId: 'c', assertionFile: 'jwt' })).toEqual([
      'assertionFile: must be an absolute path',
    ]);
    expect(ok(McpAuthSchema, { grant: 'jwt_bearer', clientId: 'c', assertion: '' })).toBe(false);
  });

  it('redirectPort is a port number 1-65535', () => {
    const port = (value: unknown) => ok(McpAuthSchema, { redirectPort: value });
    expect([1, 8080, 65535].map(port)).toEqual([true, true, true]);
    expect([0, 65536, 80.5, '8080'].map(port)).toEqual([false, false, false, false]);
  });

  it('issuer and clientMetadataUrl are URLs; clientId is non-empty', () => {
    expect(ok(McpAuthSchema, { issuer: 'https://as.example' })).toBe(true);
    expect(ok(McpAuthSchema, { issuer: 'as.example' })).toBe(false);
    expect(ok(McpAuthSchema, { clientMetadataUrl: 'client.json' })).toBe(false);
    expect(ok(McpAuthSchema, { clientId: '' })).toBe(false);
    expect(ok(McpAuthSchema, { dpop: 'on' })).toBe(false);
    expect(ok(McpAuthSchema, { scopes: 'read' })).toBe(false);
  });
});

describe('the identity provider of cross_app_access', () => {
  it('needs tokenEndpoint or issuer, a client id and an ID token', () => {
    expect(
      ok(McpIdpSchema, { tokenEndpoint: 'https://idp.example/token', clientId: 'c', idToken: 't' }),
    ).toBe(true);
    expect(messages(McpIdpSchema, { clientId: 'c', idToken: 't' })).toEqual([
      ': give `tokenEndpoint` or `issuer`',
    ]);
    expect(ok(McpIdpSchema, { issuer: 'https://idp.example', clientId: 'c' })).toBe(false);
    expect(ok(McpIdpSchema, { issuer: 'https://idp.example', clientId: '', idToken: 't' })).toBe(false);
  });
});

describe("a node's prompt and the flow's starters", () => {
  const idMessage = 'expected an id: a letter, then letters, digits, _ or -';

  it('a prompt names a server id, a prompt name and string arguments', () => {
    const prompt = { server: 'docs', name: 'summarise', args: { topic: '{{input.text}}' } };
    expect(NodePromptSchema.parse(prompt)).toEqual(prompt);
    expect(messages(NodePromptSchema, { server: 'docs.x', name: 'p' })).toEqual([`server: ${idMessage}`]);
    expect(ok(NodePromptSchema, { server: 'docs', name: '' })).toBe(false);
    expect(ok(NodePromptSchema, { server: 'docs', name: 'p', args: { n: 1 } })).toBe(false);
  });

  it('starters name a server and optionally 1-50 prompts', () => {
    expect(StartersSchema.parse({ server: 'docs' })).toEqual({ server: 'docs' });
    const prompts = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
    expect(ok(StartersSchema, { server: 'docs', prompts: prompts(1) })).toBe(true);
    expect(ok(StartersSchema, { server: 'docs', prompts: prompts(50) })).toBe(true);
    expect(ok(StartersSchema, { server: 'docs', prompts: prompts(51) })).toBe(false);
    expect(ok(StartersSchema, { server: 'docs', prompts: [] })).toBe(false);
    expect(ok(StartersSchema, { server: 'docs', prompts: [''] })).toBe(false);
    expect(messages(StartersSchema, { server: '1docs' })).toEqual([`server: ${idMessage}`]);
  });
});
