import { describe, expect, it } from 'vitest';
import type { ListServerTools, RemoteTool } from '../../src/flow/mcp-check.js';
import { formatProblem } from '../../src/flow/problems.js';
import { validateFlow } from '../../src/flow/validate.js';
import { DEMO_SERVER, demoDataDir } from '../helpers/demo-server.js';
import { tempFiles } from './helpers.js';

const schema = (...names: string[]): Record<string, unknown> => ({
  type: 'object',
  properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
});

/** A lister over fixed tool lists; a server missing from `servers` cannot be reached. */
function fakeServers(servers: Record<string, RemoteTool[]>): ListServerTools {
  return (id) => {
    const tools = servers[id];
    return tools ? Promise.resolve(tools) : Promise.reject(new Error(`connection refused (${id})`));
  };
}

const TWO_SERVERS = `id: t
mcpServers:
  a: { command: node, args: [a.js] }
  b: { url: http://127.0.0.1:1/mcp }
tools:
  create:
    params: { spaceId: { source: evidence, from: [list] }, nmae: { source: user } }
nodes:
  - id: n
    tools: [list, create, lst]
`;

async function validateText(
  yaml: string,
  list: ListServerTools | boolean,
  files: Record<string, string> = {},
): Promise<string[]> {
  const dir = await tempFiles({ 'flow.yaml': yaml, ...files });
  const { problems } = await validateFlow(`${dir}/flow.yaml`, { servers: list });
  return problems.map((p) => formatProblem(p).replace(`${dir}/`, ''));
}

describe('validateFlow: the server check', () => {
  const servers = {
    a: [{ name: 'list' }, { name: 'create', inputSchema: schema('spaceId', 'name') }],
    b: [{ name: 'list' }],
  };

  it('reports missing tools, shared names without an alias, and unknown parameters', async () => {
    expect(await validateText(TWO_SERVERS, fakeServers(servers))).toEqual([
      'flow.yaml:4:6 mcpServers.b: servers "a" and "b" both export a tool named "list"; expected an alias under aliases for one of each, e.g. { b.list: b_list }',
      'flow.yaml:7:60 tools.create.params.nmae: tool "create" has no parameter "nmae" (did you mean "name"?); expected one of: spaceId, name',
      'flow.yaml:10:27 nodes[0].tools[2]: no server exports a tool "lst" (did you mean "list"?); expected one of: list, create; a server may hide tools that need a client capability: a is not offered sampling (`sampling: true`) or roots (`roots`); b is not offered sampling (`sampling: true`) or roots (`roots`); a local tool (defineTool) or a builtin (defineBuiltin) is given with --tools MODULE',
    ]);
  });

  it('checks the names of `text.params` against the tool’s input schema', async () => {
    const yaml = TWO_SERVERS.replace('tools: [list, create, lst]', 'tools: [list, create, b_list]')
      .replace(
        'nmae: { source: user } }',
        'name: { source: user } }\n    text: { params: [name, titel], untrusted: refuse }',
      )
      .replace('id: t\n', 'id: t\naliases: { b.list: b_list }\n');
    expect(await validateText(yaml, fakeServers(servers))).toEqual([
      expect.stringMatching(/tools\.create\.text\.params\[1\]: tool "create" has no parameter "titel"/),
    ]);
  });

  it('accepts the shared name once one side is aliased, and checks the alias', async () => {
    const fixed = TWO_SERVERS.replace('tools: [list, create, lst]', 'tools: [list, create, b_list]').replace(
      'nmae',
      'name',
    );
    expect(
      await validateText(
        fixed.replace('id: t\n', 'id: t\naliases: { b.list: b_list }\n'),
        fakeServers(servers),
      ),
    ).toEqual([]);
    expect(
      await validateText(
        fixed.replace('id: t\n', 'id: t\naliases: { b.list: b_list, a.nope: x }\n'),
        fakeServers(servers),
      ),
    ).toEqual([
      'flow.yaml:2:28 aliases["a.nope"]: server "a" exports no tool "nope"; expected one of: list, create',
    ]);
  });

  it('reports an unreachable server once, without guessing about its tools', async () => {
    expect(await validateText(TWO_SERVERS, fakeServers({ a: servers.a }))).toEqual([
      "flow.yaml:4:6 mcpServers.b: cannot list the server's tools: connection refused (b); expected a reachable MCP server",
      'flow.yaml:7:60 tools.create.params.nmae: tool "create" has no parameter "nmae" (did you mean "name"?); expected one of: spaceId, name',
    ]);
  });

  it("checks the arguments a `from` entry's `where` tests against that tool's parameters", async () => {
    const yaml = `id: t
mcpServers:
  a: { command: node, args: [a.js] }
tools:
  pay:
    params:
      iban: { source: evidence, from: [{ tool: read_file, where: { file_pth: user } }] }
      amount:
        derive: { op: sum, of: [{ source: evidence, from: [{ tool: read_file, where: { path: { equals: bill.txt } } }] }, { source: user }] }
nodes:
  - id: n
    tools: [read_file, pay]
`;
    const servers = {
      a: [
        { name: 'read_file', inputSchema: schema('file_path') },
        { name: 'pay', inputSchema: schema('iban', 'amount') },
      ],
    };
    const problems = await validateText(yaml, fakeServers(servers));
    expect(problems).toEqual([
      expect.stringMatching(
        /tools\.pay\.params\.iban\.from\[0\]\.where\.file_pth: tool "read_file" has no parameter "file_pth" \(did you mean "file_path"\?\); expected one of: file_path$/,
      ),
      expect.stringMatching(
        /tools\.pay\.params\.amount\.derive\.of\[0\]\.from\[0\]\.where\.path: tool "read_file" has no parameter "path"/,
      ),
    ]);
  });

  it('counts the host tools as known and skips servers when asked', async () => {
    const dir = await tempFiles({ 'flow.yaml': 'id: t\nnodes: [{ id: n, tools: [local] }]\n' });
    expect((await validateFlow(`${dir}/flow.yaml`, { servers: fakeServers({}) })).problems).toHaveLength(1);
    expect(
      (await validateFlow(`${dir}/flow.yaml`, { servers: fakeServers({}), knownTools: ['local'] })).problems,
    ).toEqual([]);
    expect((await validateFlow(`${dir}/flow.yaml`, { servers: false })).problems).toEqual([]);
  });

  it('checks that a scripted model file exists, next to the flow', async () => {
    const yaml = 'id: t\nmodel: scripted:./turns.yaml\nnodes: [{ id: n }]\n';
    expect(await validateText(yaml, fakeServers({}))).toEqual([
      expect.stringMatching(
        /^flow\.yaml:2:8 model: file not found: .*\/turns\.yaml; expected a scripted model file relative to the flow's folder$/,
      ),
    ]);
    expect(await validateText(yaml, fakeServers({}), { 'turns.yaml': 'turns: []\n' })).toEqual([]);
  });

  it('returns the load problems without connecting when the file is broken', async () => {
    const list: ListServerTools = () => Promise.reject(new Error('must not be called'));
    expect(await validateText('id: t\nnodez: []\n', list)).toHaveLength(2);
  });
});

describe('validateFlow against the demo MCP server', () => {
  it('finds the site-builder example valid', async () => {
    const { problems } = await validateFlow('examples/site-builder/flow.yaml');
    expect(problems.map(formatProblem)).toEqual([]);
  });

  it('finds tools exported by two real servers, a missing tool and a server that does not start', async () => {
    const server = (data: string): string =>
      `{ command: node, args: [${JSON.stringify(DEMO_SERVER)}], env: { DEMO_CLOUD_DATA: ${JSON.stringify(data)} } }`;
    const yaml = `id: t
mcpServers:
  one: ${server(demoDataDir())}
  two: ${server(demoDataDir())}
aliases: { two.space_list: two_space_list }
nodes: [{ id: n, tools: [space_list, two_space_list, web_site_lst] }]
`;
    const lines = await validateText(yaml, true);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^flow\.yaml:4:8 mcpServers\.two: servers "one" and "two" both export tools named "web_site_list", "web_site_get", .*; expected an alias under aliases for one of each, e\.g\. \{ two\.web_site_list: two_web_site_list \}$/,
      ),
    );
    expect(lines.filter((l) => l.includes('"space_list"'))).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^flow\.yaml:6:54 nodes\[0\]\.tools\[2\]: no server exports a tool "web_site_lst" \(did you mean "web_site_list"\?\)/,
      ),
    );

    const broken = await validateText(
      'id: t\nmcpServers:\n  gone: { command: /no/such/binary }\nnodes: [{ id: n, tools: [x] }]\n',
      true,
    );
    expect(broken).toEqual([
      expect.stringMatching(
        /^flow\.yaml:3:9 mcpServers\.gone: cannot list the server's tools: .+; expected a reachable MCP server$/,
      ),
    ]);
  });
});
