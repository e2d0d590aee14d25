import { describe, expect, it } from 'vitest';
import { FlowSchema, type FlowInput } from '../../src/domain/flow.js';
import type { RawProblem } from '../../src/flow/problems.js';
import { toolProblems } from '../../src/flow/semantic-tools.js';

/**
 * The static checks of tool policies (src/flow/semantic-tools.ts), continued from
 * semantic-tools.test.ts: write-only keys, pending and verify, the expressions of a policy, approval
 * rules and expiry, and aliases — each problem with its path and words.
 */

type FlowData = Omit<FlowInput, 'id'> & { id?: string };

function flow(data: FlowData) {
  return FlowSchema.parse({ id: 'f', ...data });
}

/** Problems as `path: message` (`@` before the last segment when the problem points at a key). */
function problems(data: FlowData, known: Iterable<string> = []): string[] {
  return toolProblems(flow(data), new Set(known)).map(line);
}

function line(p: RawProblem): string {
  const path = p.path.map(String);
  if (p.atKey) path[path.length - 1] = `@${path.at(-1) ?? ''}`;
  return `${path.join('.')}: ${p.message}`;
}

describe('toolProblems: write policies', () => {
  const one = (policy: Record<string, unknown>): FlowData => ({
    nodes: [{ id: 'a', tools: ['w', 'get'] }],
    tools: { w: policy },
  });

  it('pending needs verify and verify needs pending', () => {
    expect(problems(one({ pending: 'x' }))).toEqual([
      'tools.w.pending: a pending write must be confirmed; expected verify: {tool, args, done} beside pending',
    ]);
    expect(problems(one({ verify: { tool: 'get', args: {}, done: 'y' } }))).toEqual([
      'tools.w.verify: verify confirms a pending write; expected pending beside it',
    ]);
  });

  it('write: false refuses every write-only key, at the key', () => {
    expect(
      problems(
        one({
          write: false,
          pending: 'x',
          verify: { tool: 'get', args: {}, done: 'y' },
          recover: { tool: 'get', args: {}, found: 'z' },
          idempotent: true,
          approval: {},
          text: { params: ['title'], untrusted: 'refuse' },
        }),
      ),
    ).toEqual(
      ['pending', 'verify', 'recover', 'idempotent', 'approval', 'text'].map(
        (key) => `tools.w.@${key}: ${key} applies to write tools only; expected write: true or no ${key}`,
      ),
    );
  });

  it('every expression of a policy must parse: trust paths, response paths, verify and recover', () => {
    const bad = 'a[';
    const found = problems(
      one({
        trust: { untrusted: [bad], confidential: ['ok', bad] },
        response: { okPath: bad, okValues: [0], codePath: bad, messagePath: 'fine' },
        pending: bad,
        verify: { tool: 'get', args: { id: bad }, done: bad },
        recover: { tool: 'get', args: { id: 'ok' }, found: bad },
      }),
    );
    expect(found.map((p) => p.slice(0, p.indexOf(':')))).toEqual([
      'tools.w.trust.untrusted.0',
      'tools.w.trust.confidential.1',
      'tools.w.response.okPath',
      'tools.w.response.codePath',
      'tools.w.pending',
      'tools.w.verify.args.id',
      'tools.w.verify.done',
      'tools.w.recover.found',
    ]);
    for (const p of found) expect(p).toMatch(/: expected a JSONata expression: /);
  });

  it('a verify tool must be visible in every node where its write is', () => {
    const found = problems({
      nodes: [
        { id: 'a', tools: ['w', 'get'] },
        { id: 'b', tools: ['w'] },
        { id: 'c', tools: ['w'] },
      ],
      tools: { w: { pending: 'x', verify: { tool: 'get', args: {}, done: 'y' } } },
    });
    expect(found).toEqual(
      ['b', 'c'].map(
        (node) =>
          `tools.w.verify.tool: verify tool "get" is not visible in node "${node}", where "w" is; expected it in that node's tools (the model calls it to confirm the write)`,
      ),
    );
  });
});

describe('toolProblems: approval', () => {
  const approval = (policy: Record<string, unknown>): string[] =>
    problems({ nodes: [{ id: 'a', tools: ['w'] }], tools: { w: { write: true, approval: policy } } });

  it('auto and reject rules must parse', () => {
    expect(approval({ auto: 'args.amount < 100', reject: 'args.amount >' })).toEqual([
      expect.stringMatching(/^tools\.w\.approval\.reject: expected a JSONata expression: /),
    ]);
  });

  it('onExpiry and escalateTo need expiresAfter', () => {
    expect(approval({ onExpiry: 'reject' })).toEqual([
      'tools.w.approval.@onExpiry: onExpiry needs expiresAfter beside it',
    ]);
    expect(approval({ onExpiry: 'escalate', escalateTo: ['admin'] })).toEqual([
      'tools.w.approval.@onExpiry: onExpiry needs expiresAfter beside it',
      'tools.w.approval.@escalateTo: escalateTo needs expiresAfter beside it',
    ]);
  });

  it('escalate needs escalateTo, and escalateTo needs escalate', () => {
    expect(approval({ expiresAfter: '15m', onExpiry: 'escalate' })).toEqual([
      'tools.w.approval.@onExpiry: onExpiry escalate needs escalateTo: the roles to notify',
    ]);
    expect(approval({ expiresAfter: '15m', escalateTo: ['admin'] })).toEqual([
      'tools.w.approval.@escalateTo: escalateTo applies to onExpiry escalate; expected onExpiry: escalate',
    ]);
    expect(approval({ expiresAfter: '15m', onExpiry: 'reject', escalateTo: ['ops'] })).toEqual([
      'tools.w.approval.@escalateTo: escalateTo applies to onExpiry escalate; expected onExpiry: escalate',
    ]);
    expect(approval({ expiresAfter: 'PT1H', onExpiry: 'escalate', escalateTo: ['ops'] })).toEqual([]);
  });
});

describe('toolProblems: aliases', () => {
  const servers = { cloud: { command: 'npx' }, shop: { url: 'https://shop.example/mcp' } };

  it('a key must be <server>.<tool> of a declared server', () => {
    const found = problems({
      nodes: [{ id: 'a' }],
      mcpServers: servers,
      aliases: { list: 'l1', '.list': 'l2', 'cloud.': 'l3', 'clod.list': 'l4', 'cloud.list': 'l5' },
    });
    expect(found).toEqual([
      'aliases.@list: expected <server>.<tool> (servers: cloud, shop)',
      'aliases.@.list: expected <server>.<tool> (servers: cloud, shop)',
      'aliases.@cloud.: expected <server>.<tool> (servers: cloud, shop)',
      'aliases.@clod.list: unknown server "clod" (did you mean "cloud"?); expected one of mcpServers: cloud, shop',
    ]);
  });

  it('a tool name may be only one alias', () => {
    expect(
      problems({
        nodes: [{ id: 'a' }],
        mcpServers: servers,
        aliases: { 'cloud.list': 'list', 'shop.list': 'list', 'shop.items': 'items' },
      }),
    ).toEqual(['aliases.shop.list: "list" already names cloud.list; expected a distinct name']);
  });

  it('splits at the first dot: the tool part may hold dots', () => {
    expect(
      problems({ nodes: [{ id: 'a' }], mcpServers: servers, aliases: { 'shop.v2.list': 'v2_list' } }),
    ).toEqual([]);
  });
});
