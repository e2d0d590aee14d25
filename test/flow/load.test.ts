import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INPUT_SCHEMA } from '../../src/domain/flow.js';
import { nodeLimits } from '../../src/engine/node-host.js';
import { loadFlow, loadFlowText } from '../../src/flow/load.js';
import { flowModel } from '../../src/flow/paths.js';
import { FlowError, isFlowError } from '../../src/flow/problems.js';
import { BASE, problemLines, tempFiles } from './helpers.js';

const edit = (from: string, to: string): string => {
  expect(BASE).toContain(from);
  return BASE.replace(from, to);
};

describe('loadFlow: valid flows', () => {
  it('loads the site-builder example with its folder and path', async () => {
    const loaded = await loadFlow('examples/site-builder/flow.yaml');
    expect(loaded.flow.id).toBe('site-builder');
    expect(loaded.flow.nodes.map((n) => n.id)).toEqual(['query', 'create']);
    expect(loaded.dir).toBe(join(process.cwd(), 'examples/site-builder'));
    expect(loaded.path).toBe(join(process.cwd(), 'examples/site-builder/flow.yaml'));
    expect(loaded.flow.tools.web_site_create?.params?.spaceId).toEqual({
      source: 'evidence',
      from: ['space_list'],
      path: 'data.spaceId',
    });
    expect(flowModel(loaded)).toBe(`scripted:${join(process.cwd(), 'examples/site-builder/turns.yaml')}`);
  });

  it('loads the delegating example with its child flow', async () => {
    const loaded = await loadFlow('examples/flows/delegating.yaml');
    expect(loaded.flow.nodes[0]?.delegates).toEqual(['./site-report.yaml']);
  });

  it('applies every default', async () => {
    const loaded = await loadFlow({ id: 'min', nodes: [{ id: 'only' }] });
    expect(loaded).toMatchObject({ dir: null, path: null });
    expect(loaded.flow).toEqual({
      id: 'min',
      version: 1,
      locale: 'zh-CN',
      mcpServers: {},
      limits: { maxRounds: 30, maxStalls: 5, fingerprintRepeats: 2, toolTimeoutMs: 30_000 },
      aliases: {},
      input: DEFAULT_INPUT_SCHEMA,
      tools: {},
      nodes: [{ id: 'only', instructions: '', tools: [], outputs: {}, delegates: [] }],
      edges: [],
    });
  });

  it('fills partial limits, server args and output required', async () => {
    const loaded = await loadFlowText(
      `id: x\nlimits: { maxRounds: 3 }\nmcpServers: { s: { command: node } }\nnodes: [{ id: a, tools: [t], outputs: { k: { sources: [model] } } }]`,
    );
    expect(loaded.flow.limits).toEqual({
      maxRounds: 3,
      maxStalls: 5,
      fingerprintRepeats: 2,
      toolTimeoutMs: 30_000,
    });
    expect(loaded.flow.mcpServers.s).toEqual({ command: 'node', args: [] });
    expect(loaded.flow.nodes[0]?.outputs.k?.required).toBe(false);
  });

  it("a node's limits keep only the keys it gives: the flow's values stand for the rest", async () => {
    const loaded = await loadFlowText(
      `id: x\nlimits: { maxStalls: 3 }\nnodes: [{ id: a, limits: { maxRounds: 4 } }]`,
    );
    const node = loaded.flow.nodes[0]!;
    expect(node.limits).toEqual({ maxRounds: 4 });
    expect(nodeLimits(loaded.flow, node)).toMatchObject({
      maxRounds: 4,
      maxStalls: 3,
      fingerprintRepeats: 2,
    });
  });

  it('resolves an object flow against baseDir', async () => {
    const dir = await tempFiles({ 'child.yaml': 'id: child\nnodes: [{ id: a }]\n' });
    const loaded = await loadFlow(
      { id: 'p', nodes: [{ id: 'a', delegates: ['child.yaml'] }] },
      { baseDir: dir },
    );
    expect(loaded.dir).toBe(dir);
    await expect(loadFlow({ id: 'p', nodes: [{ id: 'a', delegates: ['child.yaml'] }] })).rejects.toThrow(
      FlowError,
    );
  });
});

describe('loadFlow: structure problems name file, path, line and what is expected', () => {
  it.each([
    ['YAML syntax', edit('  - id: query\n', '  - id: [query\n'), /^flow\.yaml:\d+:\d+: /],
    ['a duplicate key', edit('id: t\n', 'id: t\nid: u\n'), /^flow\.yaml:2:1: Map keys must be unique$/],
    [
      'an unknown top-level key',
      edit('edges:', 'edgez:'),
      /^flow\.yaml:22:1 edgez: unknown key "edgez" \(did you mean "edges"\?\); expected one of: .*edges/,
    ],
    [
      'an unknown key in a node',
      edit('    tools: [space_list, web_site_list]', '    toolz: [space_list, web_site_list]'),
      /^flow\.yaml:14:5 nodes\[0\]\.toolz: unknown key "toolz" \(did you mean "tools"\?\)/,
    ],
    [
      'a wrong type',
      edit('tools: [space_list, web_site_list]', 'tools: space_list'),
      /^flow\.yaml:14:12 nodes\[0\]\.tools: expected a list, got "space_list"$/,
    ],
    ['a missing required key', edit('id: t\n', ''), /^flow\.yaml:1:1 id: required; expected a string$/],
    [
      'a bad enum value',
      edit('id: t\n', 'id: t\nlocale: fr\n'),
      /^flow\.yaml:2:9 locale: expected one of: "zh-CN", "en"; got "fr"$/,
    ],
    [
      'a non-positive limit',
      edit('id: t\n', 'id: t\nlimits: { maxStalls: 0 }\n'),
      /^flow\.yaml:2:22 limits\.maxStalls: expected a positive number$/,
    ],
    [
      'a server with a misspelt key',
      edit('{ command: node, args: [server.js] }', '{ command: node, argz: [server.js] }'),
      /^flow\.yaml:3:27 mcpServers\.cloud\.argz: unknown key "argz" \(did you mean "args"\?\); expected one of: command, args, env, inheritEnv, cwd, connectTimeoutMs, trustReadOnlyHint, roots, sampling, protocol, elicitation, elicitationHoldSeconds, logLevel$/,
    ],
    [
      'a server that is neither kind',
      edit('{ command: node, args: [server.js] }', '{ }'),
      /^flow\.yaml:3:10 mcpServers\.cloud: expected a stdio server \{command, args\?, env\?, inheritEnv\?, cwd\?\} or an HTTP server \{url, headers\?\}$/,
    ],
    [
      'an unknown param contract key',
      edit('name: { source: user, required: true }', 'name: { source: user, requird: true }'),
      /^flow\.yaml:9:29 tools\.web_site_create\.params\.name\.requird: unknown key "requird" \(did you mean "required"\?\)/,
    ],
    [
      'a bad source',
      edit('source: user', 'source: users'),
      /^flow\.yaml:9:23 tools\.web_site_create\.params\.name\.source: expected one of: "evidence", "user"; got "users"$/,
    ],
    [
      'a bad model',
      edit('id: t\n', 'id: t\nmodel: gpt-4\n'),
      /^flow\.yaml:2:8 model: expected <provider>:<model id>/,
    ],
    [
      'a bad node id',
      edit('- id: query', '- id: "my query"'),
      /^flow\.yaml:13:9 nodes\[0\]\.id: expected an id: a letter, then letters, digits, _ or -; got "my query"$/,
    ],
    [
      'a bad tool key',
      edit('  web_site_create:\n', '  web.site.create:\n'),
      /^flow\.yaml:5:3 tools\["web\.site\.create"\]: key "web\.site\.create": expected a tool name/,
    ],
    ['no nodes', 'id: t\nnodes: []\n', /^flow\.yaml:2:8 nodes: expected at least 1 item$/],
  ])('%s', async (_kind, yaml, expected) => {
    const lines = await problemLines(yaml);
    expect(
      lines.some((line) => expected.test(line)),
      lines.join('\n'),
    ).toBe(true);
  });

  it('rejects a document that is not a mapping, and a missing file, without a stack', async () => {
    expect(await problemLines('- a\n- b\n')).toEqual([
      'flow.yaml:1:1: expected a mapping with id, nodes and the other flow keys',
    ]);
    const error = await loadFlow('no/such/flow.yaml').catch((e: unknown) => e);
    expect(isFlowError(error)).toBe(true);
    expect((error as FlowError).message).toBe(
      'no/such/flow.yaml: cannot read the flow: file not found; expected a readable YAML or JSON file',
    );
  });

  it('reports more than one document and tabs as syntax problems', async () => {
    expect(await problemLines('id: t\nnodes: [{ id: a }]\n---\nid: u\n')).toEqual([
      'flow.yaml:3:1: Source contains multiple documents; expected one YAML document',
    ]);
    expect(await problemLines('id: t\n\tnodes: []\n')).toEqual([
      'flow.yaml:2:1: Tabs are not allowed as indentation',
    ]);
  });

  it('reports structure problems in line order', async () => {
    const yaml =
      'id: t\nversion: 0\nnodes: [{ id: a, limits: { maxRounds: 1.5 } }]\nproviders: { q: { type: openai, baseURL: nope } }\n';
    expect(await problemLines(yaml)).toEqual([
      'flow.yaml:2:10 version: expected a positive number',
      'flow.yaml:3:39 nodes[0].limits.maxRounds: expected an integer, got the number 1.5',
      'flow.yaml:4:25 providers.q.type: expected "openai-compatible", got "openai"',
      'flow.yaml:4:42 providers.q.baseURL: expected an absolute URL; got "nope"',
    ]);
  });

  it('reports every structure problem at once', async () => {
    const yaml = edit('edges:', 'edgez:')
      .replace('tools: [space_list, web_site_list]', 'tools: 1')
      .replace('id: t\n', 'id: t\nlocale: fr\n');
    expect(await problemLines(yaml)).toHaveLength(3);
  });
});

describe('loadFlow: FlowError', () => {
  it('prints one line per problem as file:line:col path: message', async () => {
    const error = (await loadFlow('examples/flows/invalid.yaml').catch((e: unknown) => e)) as FlowError;
    expect(error).toBeInstanceOf(FlowError);
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(error.problems.length);
    for (const line of lines) expect(line).toMatch(/^examples\/flows\/invalid\.yaml:\d+:\d+ \S+: .*expected/);
    expect(lines).toEqual([
      expect.stringMatching(
        /^examples\/flows\/invalid\.yaml:9:3 tools\.web_site_creat: tool "web_site_creat" is not visible in any node \(did you mean "web_site_create"\?\)/,
      ),
      expect.stringMatching(
        /:12:43 tools\.web_site_creat\.params\.spaceId\.from\[0\]: tool "space_lst" .*did you mean "space_list"/,
      ),
      expect.stringMatching(
        /:13:14 tools\.web_site_creat\.pending: expected a JSONata expression: String literal must be terminated/,
      ),
      expect.stringMatching(
        /:13:14 tools\.web_site_creat\.pending: a pending write must be confirmed; expected verify/,
      ),
      expect.stringMatching(
        /:18:19 nodes\[1\]\.instructions: \{\{nodes\.quer\.outputs\.sites\}\}: unknown node "quer" \(did you mean "query"\?\)/,
      ),
      expect.stringMatching(
        /:23:24 edges\[0\]\.to: unknown node "creat" \(did you mean "create"\?\); expected one of: query, create$/,
      ),
    ]);
  });

  it('names an object flow <inline> (or its given name) and has no positions', async () => {
    const error = (await loadFlow({ id: 't', nodes: [{ id: 'a', tools: 'x' }] }).catch(
      (e: unknown) => e,
    )) as FlowError;
    expect(error.message).toBe('<inline> nodes[0].tools: expected a list, got "x"');
    const named = (await loadFlow({ id: 't', nodes: [] }, { name: 'api:flow' }).catch(
      (e: unknown) => e,
    )) as FlowError;
    expect(named.problems).toEqual([
      { file: 'api:flow', path: 'nodes', message: 'expected at least 1 item' },
    ]);
  });
});
