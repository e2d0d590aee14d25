import { describe, expect, it } from 'vitest';
import { FlowSchema } from '../../src/domain/flow.js';
import { schemaProblems } from '../../src/flow/schema-issues.js';

/**
 * The structure problems of the real flow format (src/domain/flow.ts through src/flow/schema-issues.ts):
 * what a person sees for a misspelt key, a wrong type, a bound, an enum, a pattern, a union (MCP
 * servers, `source`, `from`, `trust`) and a refinement, at the path of the mistake.
 * test/flow/schema-issues.test.ts covers the same wording on a small schema of its own.
 */

const minimal = { id: 'f', nodes: [{ id: 'a' }] };

/** `path: message`, with `@` before the last segment when the problem points at a key. */
function problems(data: unknown): string[] {
  const parsed = FlowSchema.safeParse(data);
  if (parsed.success) return [];
  return schemaProblems(FlowSchema, parsed.error.issues, data).map((p) => {
    const path = p.path.map(String);
    if (p.atKey) path[path.length - 1] = `@${path.at(-1) ?? ''}`;
    return `${path.join('.')}: ${p.message}`;
  });
}

const flowWith = (extra: Record<string, unknown>) => ({ ...minimal, ...extra });
const toolWith = (policy: Record<string, unknown>) => flowWith({ tools: { t: policy } });
const serverWith = (entry: unknown) => flowWith({ mcpServers: { s: entry } });
const nodeWith = (node: Record<string, unknown>) => ({ id: 'f', nodes: [{ id: 'a', ...node }] });

describe('the whole file', () => {
  it('must be a mapping', () => {
    expect(problems([])).toEqual([': expected a mapping, got a list']);
    expect(problems(null)).toEqual([': expected a mapping, got null']);
    expect(problems('id: f')).toEqual([': expected a mapping, got "id: f"']);
  });

  it('needs an id and nodes', () => {
    expect(problems({})).toEqual(['id: required; expected a string', 'nodes: required; expected a list']);
  });
});

describe('misspelt keys', () => {
  it('are named at the key, with the nearest allowed key and every allowed key of that place', () => {
    expect(problems(nodeWith({ instructons: 'x' }))).toEqual([
      'nodes.0.@instructons: unknown key "instructons" (did you mean "instructions"?); expected one of: id, instructions, tools, outputs, delegates, prompt, resources, limits, run, module, map, answer, sees, reply',
    ]);
    expect(problems(flowWith({ limits: { maxRound: 3 } }))).toEqual([
      'limits.@maxRound: unknown key "maxRound" (did you mean "maxRounds"?); expected one of: maxRounds, maxStalls, fingerprintRepeats, toolTimeoutMs, toolTotalTimeoutMs, contextTokens, maxOutputTokens, maxTokens, maxCost',
    ]);
  });

  it("are found in a node's limits, an output, a field contract and an auth block", () => {
    expect(problems(nodeWith({ limits: { maxStall: 1 } }))[0]).toMatch(
      /^nodes\.0\.limits\.@maxStall: unknown key "maxStall" \(did you mean "maxStalls"\?\); expected one of: maxRounds, /,
    );
    expect(problems(nodeWith({ outputs: { k: { sources: ['model'], requird: true } } }))).toEqual([
      'nodes.0.outputs.k.@requird: unknown key "requird" (did you mean "required"?); expected one of: required, sources, from, match, description, schema',
    ]);
    expect(problems(toolWith({ params: { p: { fields: { a: { sorce: 'user' } } } } }))).toEqual([
      'tools.t.params.p.fields.a.@sorce: unknown key "sorce" (did you mean "source"?); expected one of: source, from, path, match, untrusted, enum, derive, required',
    ]);
    expect(problems(serverWith({ url: 'https://mcp.example/mcp', auth: { grnt: 'x' } }))).toEqual([
      'mcpServers.s.auth.@grnt: unknown key "grnt" (did you mean "grant"?); expected one of: grant, idp, clientId, clientSecret, privateKey, signingAlgorithm, clientMetadataUrl, scope, issuer, redirectPort, assertion, assertionFile, dpop',
    ]);
  });
});

describe('types, bounds, enums and patterns', () => {
  it('say what was expected and what was found', () => {
    expect(problems(nodeWith({ tools: 'space_list' }))).toEqual([
      'nodes.0.tools: expected a list, got "space_list"',
    ]);
    expect(problems(toolWith({ write: 'yes' }))).toEqual([
      'tools.t.write: expected true or false, got "yes"',
    ]);
    expect(problems(flowWith({ input: 'text' }))).toEqual(['input: expected a mapping, got "text"']);
    expect(problems(nodeWith({ outputs: { k: {} } }))).toEqual([
      'nodes.0.outputs.k.sources: required; expected a list',
    ]);
  });

  it('word the limits', () => {
    expect(problems(flowWith({ limits: { maxRounds: 0, toolTimeoutMs: 1.5, maxCost: 0 } }))).toEqual([
      'limits.maxRounds: expected a positive number',
      'limits.toolTimeoutMs: expected an integer, got the number 1.5',
      'limits.maxCost: expected a positive number',
    ]);
    expect(problems(nodeWith({ map: { over: 'x', node: 'b', concurrency: 17 } }))).toEqual([
      'nodes.0.map.concurrency: expected at most 16',
    ]);
    expect(problems(toolWith({ approval: { approvers: { count: 0 } } }))).toEqual([
      'tools.t.approval.approvers.count: expected a number >= 1',
    ]);
    expect(problems(toolWith({ response: { okPath: 'code', okValues: [] } }))).toEqual([
      'tools.t.response.okValues: expected at least 1 item',
    ]);
    expect(problems(flowWith({ edges: [{ from: 'a', to: 'a', when: '' }] }))).toEqual([
      'edges.0.when: expected a non-empty string',
    ]);
  });

  it('list the allowed values of an enum', () => {
    expect(problems(flowWith({ locale: 'fr' }))).toEqual([
      'locale: expected one of: "zh-CN", "en"; got "fr"',
    ]);
    expect(problems(nodeWith({ outputs: { k: { sources: ['tool'] } } }))).toEqual([
      'nodes.0.outputs.k.sources.0: expected one of: "evidence", "user", "node", "model", "code"; got "tool"',
    ]);
    expect(problems(toolWith({ params: { p: { derive: { op: 'avg', of: [] } } } }))).toEqual([
      'tools.t.params.p.derive.op: expected one of: "sum", "difference", "product", "percentage", "round"; got "avg"',
      'tools.t.params.p.derive.of: expected at least 1 item',
    ]);
  });

  it("give a pattern's own words and the value found", () => {
    expect(problems(flowWith({ model: 'gpt' }))).toEqual([
      'model: expected <provider>:<model id>, e.g. openai:gpt-4.1 or scripted:./turns.yaml; got "gpt"',
    ]);
    expect(problems(nodeWith({ module: 'steps.mjs#f' }))).toEqual([
      'nodes.0.module: expected <relative path of an ES module>#<export name>, e.g. ./steps.mjs#sum (inside the flow\'s folder); got "steps.mjs#f"',
    ]);
    expect(problems({ id: '1f', nodes: [{ id: 'a' }] })).toEqual([
      'id: expected an id: a letter, then letters, digits, _ or -; got "1f"',
    ]);
  });

  it('name a bad key of a mapping at the key', () => {
    expect(problems(flowWith({ tools: { 'cloud.x': {} } }))).toEqual([
      'tools.@cloud.x: key "cloud.x": expected a tool name: 1-64 letters, digits, _ or -',
    ]);
    expect(problems(flowWith({ prices: { 'gpt-4.1': { input: 1, output: 1 } } }))).toEqual([
      'prices.@gpt-4.1: key "gpt-4.1": expected <provider>:<model id>, e.g. openai:gpt-4.1',
    ]);
  });
});

describe('MCP server entries (a union of stdio and HTTP)', () => {
  it('report the problems of the kind the entry means', () => {
    expect(problems(serverWith({ url: 'notaurl' }))).toEqual([
      'mcpServers.s.url: expected an absolute URL; got "notaurl"',
    ]);
    expect(problems(serverWith({ command: '' }))).toEqual([
      'mcpServers.s.command: expected a non-empty string',
    ]);
    expect(problems(serverWith({ command: 'npx', protocol: 'newest' }))).toEqual([
      'mcpServers.s.protocol: expected auto, legacy or a revision such as 2026-07-28; got "newest"',
    ]);
    expect(problems(serverWith({ command: 'npx', roots: [{ uri: 'http://x' }] }))).toEqual([
      'mcpServers.s.roots.0.uri: expected a file:// URI; got "http://x"',
    ]);
  });

  it('describe both kinds for a value that is neither', () => {
    const both =
      'mcpServers.s: expected a stdio server {command, args?, env?, inheritEnv?, cwd?} or an HTTP server {url, headers?}';
    expect(problems(serverWith('npx server'))).toEqual([both]);
    expect(problems(serverWith({}))).toEqual([both]);
  });

  it("give an auth block's refinement at the block", () => {
    expect(
      problems(serverWith({ url: 'https://mcp.example/mcp', auth: { grant: 'cross_app_access' } })),
    ).toEqual(['mcpServers.s.auth: grant cross_app_access needs `idp` and `clientId` (with `clientSecret`)']);
    expect(
      problems(serverWith({ url: 'https://mcp.example/mcp', auth: { grant: 'jwt_bearer', clientId: 'c' } })),
    ).toEqual([
      'mcpServers.s.auth: grant jwt_bearer needs `clientId` and one of `assertion` or `assertionFile`',
    ]);
  });
});

describe('the unions of parameter contracts and tool trust', () => {
  it('source says which kind is unknown', () => {
    expect(problems(toolWith({ params: { p: { source: 'users' } } }))).toEqual([
      'tools.t.params.p.source: expected one of: "evidence", "user"; got "users"',
    ]);
    expect(problems(toolWith({ params: { p: { source: ['user', 'x'] } } }))).toEqual([
      'tools.t.params.p.source: expected a list of "evidence" and "user"; got "x"',
    ]);
    expect(problems(toolWith({ params: { p: { source: 3 } } }))).toEqual([
      'tools.t.params.p.source: expected "evidence", "user", or a non-empty list of them',
    ]);
    expect(problems(toolWith({ params: { p: { source: [] } } }))).toEqual([
      'tools.t.params.p.source: expected at least 1 item',
    ]);
  });

  it('from entries and where conditions', () => {
    expect(problems(toolWith({ params: { p: { from: [3] } } }))).toEqual([
      'tools.t.params.p.from.0: expected a tool name or { tool: <name>, where: { <argument>: user | { equals: <value> } } }',
    ]);
    expect(problems(toolWith({ params: { p: { from: [{ tool: 'x', where: {} }] } } }))).toEqual([
      'tools.t.params.p.from.0.where: expected at least one argument',
    ]);
    expect(problems(toolWith({ params: { p: { from: [{ tool: 'x', where: { a: 'bot' } }] } } }))).toEqual([
      'tools.t.params.p.from.0.where.a: expected user or { equals: <value> }',
    ]);
  });

  it('trust', () => {
    expect(problems(toolWith({ trust: 'maybe' }))).toEqual([
      'tools.t.trust: expected trusted, untrusted or { untrusted: [<JSONata path>, …], confidential: [<JSONata path>, …] }',
    ]);
    expect(problems(toolWith({ trust: {} }))).toEqual([
      'tools.t.trust: expected untrusted: [<JSONata path>, …], confidential: [<JSONata path>, …] or both',
    ]);
  });

  it('approval durations', () => {
    expect(problems(toolWith({ approval: { expiresAfter: '0s' } }))).toEqual([
      'tools.t.approval.expiresAfter: expected a duration such as 30s, 15m, 2h, 1d or PT15M (greater than zero)',
    ]);
    expect(problems(toolWith({ approval: { expiresAfter: 'P1DT2H' } }))).toEqual([]);
  });
});

describe('version', () => {
  it('is worded by the branch the value is closest to', () => {
    expect(problems(flowWith({ version: 1.5 }))).toEqual([
      'version: expected a positive integer or a non-empty string',
    ]);
    expect(problems(flowWith({ version: true }))).toEqual([
      'version: expected a positive integer or a non-empty string',
    ]);
    expect(problems(flowWith({ version: 0 }))).toEqual(['version: expected a positive number']);
    expect(problems(flowWith({ version: '' }))).toEqual(['version: expected a non-empty string']);
  });
});
