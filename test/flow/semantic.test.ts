import { describe, expect, it } from 'vitest';
import { inspectFlow, loadFlow } from '../../src/flow/load.js';
import { BASE, problemLines, tempFiles } from './helpers.js';

const edit = (...pairs: [string, string][]): string =>
  pairs.reduce((yaml, [from, to]) => {
    expect(yaml).toContain(from);
    return yaml.replace(from, to);
  }, BASE);

/** Asserts that loading `yaml` reports exactly the problems matching `expected` (in any order). */
async function expectProblems(
  yaml: string,
  expected: RegExp[],
  extra: Record<string, string> = {},
): Promise<void> {
  const lines = await problemLines(yaml, extra);
  for (const pattern of expected)
    expect(
      lines.some((line) => pattern.test(line)),
      `${String(pattern)}\n${lines.join('\n')}`,
    ).toBe(true);
  expect(lines, lines.join('\n')).toHaveLength(expected.length);
}

describe('semantic checks', () => {
  it('the base flow is valid', async () => {
    expect(await problemLines(BASE)).toEqual([]);
  });

  it('node ids are unique', async () => {
    const yaml = edit(['- id: create', '- id: query'], ['to: create', 'to: query']);
    await expectProblems(yaml, [
      /^flow\.yaml:17:9 nodes\[1\]\.id: duplicate node id "query" \(also nodes\[0\]\); expected unique ids$/,
    ]);
  });

  it('edges join existing nodes and their `when` parses', async () => {
    await expectProblems(
      edit(['{ from: query, to: create }', '{ from: qeury, to: create, when: "status = " }']),
      [
        /^flow\.yaml:23:13 edges\[0\]\.from: unknown node "qeury" \(did you mean "query"\?\); expected one of: query, create$/,
        /^flow\.yaml:23:38 edges\[0\]\.when: expected a JSONata expression: /,
      ],
    );
  });

  it('every node is reachable from the first one', async () => {
    await expectProblems(edit(['edges:\n  - { from: query, to: create }\n', '']), [
      /^flow\.yaml:17:9 nodes\[1\]\.id: node "create" is not reachable from the first node "query"; expected an edge leading to it$/,
      /nodes\[1\]\.instructions: \{\{nodes\.query\.outputs\.sites\}\}: node "query" never runs before node "create"/,
    ]);
  });

  it('expressions parse as JSONata: path, pending, verify, recover, response paths', async () => {
    const yaml = edit(
      ['path: data.spaceId', 'path: "data.[spaceId"'],
      ['done: "verify.data.status = \'ACTIVE\'"', 'done: "verify.data.status ="'],
      [
        '    pending:',
        '    response: { okPath: "code ==", okValues: [0] }\n    recover: { tool: web_site_list, args: { spaceId: "args.(" }, found: "$count(" }\n    pending:',
      ],
    );
    await expectProblems(yaml, [
      /^flow\.yaml:8:62 tools\.web_site_create\.params\.spaceId\.path: expected a JSONata expression/,
      /^flow\.yaml:10:25 tools\.web_site_create\.response\.okPath: expected a JSONata expression/,
      /^flow\.yaml:11:54 tools\.web_site_create\.recover\.args\.spaceId: expected a JSONata expression/,
      /^flow\.yaml:11:73 tools\.web_site_create\.recover\.found: expected a JSONata expression/,
      /^flow\.yaml:13:79 tools\.web_site_create\.verify\.done: expected a JSONata expression/,
    ]);
  });

  it('policies, from and verify tools name tools some node can see', async () => {
    const yaml = edit(
      ['  web_site_create:\n', '  web_site_delete: { write: true }\n  web_site_create:\n'],
      ['from: [space_list]', 'from: [space_lst]'],
      ['from: [web_site_create]', 'from: [web_site_creat]'],
      ['tools: [space_list, web_site_create, web_site_get]', 'tools: [space_list, web_site_create]'],
    );
    await expectProblems(yaml, [
      /^flow\.yaml:5:3 tools\.web_site_delete: tool "web_site_delete" is not visible in any node; expected a tool listed in a node's tools \(listed: space_list, web_site_list, web_site_create\)$/,
      /^flow\.yaml:9:43 tools\.web_site_create\.params\.spaceId\.from\[0\]: tool "space_lst" is not visible in any node \(did you mean "space_list"\?\)/,
      /^flow\.yaml:12:21 tools\.web_site_create\.verify\.tool: tool "web_site_get" is not visible in any node/,
      /^flow\.yaml:12:21 tools\.web_site_create\.verify\.tool: verify tool "web_site_get" is not visible in node "create", where "web_site_create" is; expected it in that node's tools/,
      /^flow\.yaml:22:61 nodes\[1\]\.outputs\.siteId\.from\[0\]: tool "web_site_creat" is not visible in any node \(did you mean "web_site_create"\?\)/,
    ]);
  });

  it('a recover tool and a tool the host registers count as known', async () => {
    const yaml = edit(
      ['  web_site_create:\n', '  local_tool: { write: false }\n  web_site_create:\n'],
      ['    pending:', '    recover: { tool: web_site_find, args: {}, found: "true" }\n    pending:'],
      ['from: [web_site_create]', 'from: [web_site_create, web_site_find]'],
    );
    const dir = await tempFiles({ 'flow.yaml': yaml });
    const inspection = await inspectFlow(`${dir}/flow.yaml`, { knownTools: ['local_tool'] });
    expect(inspection.problems).toEqual([]);
  });

  it('contracts are consistent', async () => {
    const yaml = edit(
      ['source: evidence, from: [space_list], path: data.spaceId', 'source: evidence'],
      [
        'name: { source: user, required: true }',
        'name: { source: user, from: [space_list], schema: { type: strin } }',
      ],
      [
        'sites: { sources: [evidence], from: [web_site_list] }',
        'sites: { sources: [model], from: [web_site_list] }',
      ],
    );
    await expectProblems(yaml, [
      /^flow\.yaml:8:26 tools\.web_site_create\.params\.spaceId\.source: source: evidence needs from; expected from: \[the tools whose results hold the allowed values\]$/,
      /^flow\.yaml:9:29 tools\.web_site_create\.params\.name\.from: from applies to source: evidence only; expected source: evidence beside it$/,
      /^flow\.yaml:9:65 tools\.web_site_create\.params\.name\.schema\.type: expected a valid JSON Schema: /,
      /^flow\.yaml:16:40 nodes\[0\]\.outputs\.sites\.from: from names the tools whose evidence may be cited; expected sources to include evidence$/,
    ]);
  });

  it('pending goes with verify, and write: false with neither', async () => {
    await expectProblems(
      edit(['    verify:', '    idempotent: true\n    write: false\n    verify:'], ['    write: true\n', '']),
      [
        /^flow\.yaml:9:5 tools\.web_site_create\.pending: pending applies to write tools only/,
        /^flow\.yaml:10:5 tools\.web_site_create\.idempotent: idempotent applies to write tools only; expected write: true or no idempotent$/,
        /^flow\.yaml:12:5 tools\.web_site_create\.verify: verify applies to write tools only/,
      ],
    );
    await expectProblems(edit([/^ {4}verify:.*\n/m.exec(BASE)?.[0] ?? '', '']), [
      /^flow\.yaml:10:14 tools\.web_site_create\.pending: a pending write must be confirmed; expected verify: \{tool, args, done\} beside pending$/,
    ]);
    await expectProblems(edit([/^ {4}pending:.*\n/m.exec(BASE)?.[0] ?? '', '']), [
      /^flow\.yaml:10:13 tools\.web_site_create\.verify: verify confirms a pending write; expected pending beside it$/,
    ]);
  });

  it('node tools are not builtins and not listed twice', async () => {
    await expectProblems(
      edit([
        'tools: [space_list, web_site_list]',
        'tools: [space_list, web_site_list, space_list, builtin_node_finish]',
      ]),
      [
        /^flow\.yaml:14:40 nodes\[0\]\.tools\[2\]: tool "space_list" is listed twice; expected each tool once$/,
        /^flow\.yaml:14:52 nodes\[0\]\.tools\[3\]: "builtin_node_finish" is a builtin tool name; builtin tools are offered by the runtime where a node can use them/,
      ],
    );
  });

  it('templates name inputs and outputs of nodes that run before', async () => {
    const yaml = edit(
      [
        '  - id: query\n',
        '  - id: query\n    instructions: "{{nodes.create.outputs.siteId}} {{input.txt}} {{ input.text }} {{foo}}"\n',
      ],
      [
        '{{nodes.query.outputs.sites}}',
        '{{nodes.query.outputs.site}} {{nodes.query.outputs}} {{nodes.nope.outputs.x}}',
      ],
    );
    await expectProblems(yaml, [
      /^flow\.yaml:14:19 nodes\[0\]\.instructions: \{\{nodes\.create\.outputs\.siteId\}\}: node "create" never runs before node "query"; expected a node with a path of edges to "query"$/,
      /^flow\.yaml:14:19 nodes\[0\]\.instructions: \{\{input\.txt\}\}: the input schema declares no field "txt" \(did you mean "text"\?\); expected one of: text$/,
      /^flow\.yaml:14:19 nodes\[0\]\.instructions: \{\{foo\}\}: expected \{\{nodes\.<id>\.outputs\.<key>\}\}, \{\{nodes\.<id>\.outputs\}\} or \{\{input\.<field>\}\}$/,
      /^flow\.yaml:19:19 nodes\[1\]\.instructions: \{\{nodes\.query\.outputs\.site\}\}: node "query" declares no output "site" \(did you mean "sites"\?\); expected one of: sites$/,
      /^flow\.yaml:19:19 nodes\[1\]\.instructions: \{\{nodes\.nope\.outputs\.x\}\}: unknown node "nope"/,
    ]);
  });

  it('a node may read its own outputs through a loop of edges', async () => {
    const yaml = edit([
      '{ from: query, to: create }',
      '{ from: query, to: create }\n  - { from: create, to: query, when: "status = \'failed\'" }',
    ]).replace(
      '  - id: query\n',
      '  - id: query\n    instructions: "{{nodes.query.outputs.sites}} {{nodes.create.outputs.siteId}}"\n',
    );
    expect(await problemLines(yaml)).toEqual([]);
  });

  it('the input schema is a valid JSON Schema', async () => {
    await expectProblems(
      edit([
        'id: t\n',
        'id: t\ninput: { type: object, properties: { n: { type: number } }, requird: [n] }\n',
      ]),
      [/^flow\.yaml:2:8 input: expected a valid JSON Schema: .*requird/],
    );
    await expectProblems(
      edit(['id: t\n', 'id: t\ninput: { type: object, properties: { n: { type: numbr } } }\n']),
      [
        /^flow\.yaml:2:49 input\.properties\.n\.type: expected a valid JSON Schema: must be equal to one of the allowed values$/,
      ],
    );
  });

  it('aliases name a declared server and distinct names', async () => {
    const yaml = edit([
      'id: t\n',
      'id: t\naliases: { cloud: a, clod.web_site_list: b, cloud.web_site_get: b }\n',
    ]);
    await expectProblems(yaml, [
      /^flow\.yaml:2:12 aliases\.cloud: expected <server>\.<tool> \(servers: cloud\)$/,
      /^flow\.yaml:2:22 aliases\["clod\.web_site_list"\]: unknown server "clod" \(did you mean "cloud"\?\); expected one of mcpServers: cloud$/,
      /^flow\.yaml:2:65 aliases\["cloud\.web_site_get"\]: "b" already names clod\.web_site_list; expected a distinct name$/,
    ]);
  });
});

describe('delegates', () => {
  const parent = (delegates: string): string =>
    `id: parent\nnodes:\n  - id: main\n    delegates: ${delegates}\n`;

  it('exist relative to the flow folder', async () => {
    await expectProblems(
      parent('[./sub/child.yaml, missing.yaml]'),
      [
        /^flow\.yaml:4:35 nodes\[0\]\.delegates\[1\]: file not found: .*missing\.yaml; expected a flow file relative to the flow's folder$/,
      ],
      {
        'sub/child.yaml': 'id: child\nnodes: [{ id: a }]\n',
      },
    );
  });

  it("report the child's problems under the child's file", async () => {
    await expectProblems(
      parent('[child.yaml]'),
      [/child\.yaml:2:18 nodes\[0\]\.toolz: unknown key "toolz"/],
      {
        'child.yaml': 'id: child\nnodes: [{ id: a, toolz: [] }]\n',
      },
    );
  });

  it('have distinct ids, and a flow may delegate to itself', async () => {
    await expectProblems(
      parent('[a.yaml, b.yaml, flow.yaml]'),
      [
        /^flow\.yaml:4:25 nodes\[0\]\.delegates\[1\]: flow id "same" is also the id of a\.yaml; expected delegates with distinct ids/,
      ],
      {
        'a.yaml': 'id: same\nnodes: [{ id: a }]\n',
        'b.yaml': 'id: same\nnodes: [{ id: b, delegates: [flow.yaml] }]\n',
      },
    );
  });

  it('load through loadFlow as a whole', async () => {
    const dir = await tempFiles({
      'flow.yaml': parent('[child.yaml]'),
      'child.yaml': 'id: child\nnodes: [{ id: a }]\n',
    });
    await expect(loadFlow(`${dir}/flow.yaml`)).resolves.toMatchObject({ flow: { id: 'parent' } });
  });
});
