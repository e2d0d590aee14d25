import { describe, expect, it } from 'vitest';
import { FlowSchema, type FlowInput } from '../../src/domain/flow.js';
import type { RawProblem } from '../../src/flow/problems.js';
import { BUILTIN_PREFIX, toolProblems, toolRefs } from '../../src/flow/semantic-tools.js';

/**
 * The static checks of the tools a flow names (src/flow/semantic-tools.ts), called directly on parsed
 * flows: where tools are named (`toolRefs`), and each problem `toolProblems` finds, with its path and
 * words. test/flow/semantic.test.ts covers the same checks through the loader, on YAML.
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

const twoNodes: FlowData = {
  nodes: [
    { id: 'query', tools: ['space_list', 'site_list'] },
    { id: 'create', tools: ['space_list', 'site_create', 'site_get'] },
  ],
};

describe('toolRefs', () => {
  it('lists node tools, output from, policies with their from, verify and recover, in file order', () => {
    const parsed = flow({
      nodes: [
        {
          id: 'a',
          tools: ['list', 'create'],
          outputs: { id: { sources: ['evidence'], from: ['create', 'get'] } },
        },
      ],
      tools: {
        create: {
          params: {
            space: {
              source: 'evidence',
              from: ['list', { tool: 'search', where: { q: 'user', n: { equals: 1 } } }],
            },
            owner: { fields: { id: { source: 'evidence', from: ['people'] } } },
          },
          pending: 'x',
          verify: { tool: 'get', args: {}, done: 'y' },
          recover: { tool: 'find', args: {}, found: 'z' },
        },
      },
    });
    expect(toolRefs(parsed)).toEqual([
      { name: 'list', role: 'node', path: ['nodes', 0, 'tools', 0] },
      { name: 'create', role: 'node', path: ['nodes', 0, 'tools', 1] },
      { name: 'create', role: 'output', path: ['nodes', 0, 'outputs', 'id', 'from', 0] },
      { name: 'get', role: 'output', path: ['nodes', 0, 'outputs', 'id', 'from', 1] },
      { name: 'create', role: 'policy', path: ['tools', 'create'], atKey: true },
      { name: 'list', role: 'from', path: ['tools', 'create', 'params', 'space', 'from', 0] },
      {
        name: 'search',
        role: 'from',
        path: ['tools', 'create', 'params', 'space', 'from', 1, 'tool'],
        whereArgs: ['q', 'n'],
      },
      {
        name: 'people',
        role: 'from',
        path: ['tools', 'create', 'params', 'owner', 'fields', 'id', 'from', 0],
      },
      { name: 'get', role: 'verify', path: ['tools', 'create', 'verify', 'tool'] },
      { name: 'find', role: 'recover', path: ['tools', 'create', 'recover', 'tool'] },
    ]);
  });

  it('follows a derivation into its operands, at any depth', () => {
    const parsed = flow({
      nodes: [{ id: 'a', tools: ['invoice_get', 'rate_get', 'refund'] }],
      tools: {
        refund: {
          params: {
            amount: {
              derive: {
                op: 'product',
                of: [
                  { source: 'evidence', from: ['invoice_get'] },
                  { derive: { op: 'sum', of: [{ source: 'evidence', from: ['rate_get'] }] } },
                ],
              },
            },
          },
        },
      },
    });
    expect(toolRefs(parsed).filter((r) => r.role === 'from')).toEqual([
      {
        name: 'invoice_get',
        role: 'from',
        path: ['tools', 'refund', 'params', 'amount', 'derive', 'of', 0, 'from', 0],
      },
      {
        name: 'rate_get',
        role: 'from',
        path: ['tools', 'refund', 'params', 'amount', 'derive', 'of', 1, 'derive', 'of', 0, 'from', 0],
      },
    ]);
  });

  it('is empty for a flow naming no tool', () => {
    expect(toolRefs(flow({ nodes: [{ id: 'a' }] }))).toEqual([]);
  });
});

describe('toolProblems: names', () => {
  it('finds nothing wrong in a consistent flow', () => {
    expect(
      problems({
        ...twoNodes,
        tools: {
          site_create: {
            write: true,
            params: { spaceId: { source: 'evidence', from: ['space_list'], path: 'data.id' } },
            pending: "result.status = 'CREATING'",
            verify: { tool: 'site_get', args: { id: 'result.id' }, done: "verify.status = 'ACTIVE'" },
          },
        },
      }),
    ).toEqual([]);
  });

  it('refuses builtin names in nodes, policies and from, whatever their role', () => {
    expect(BUILTIN_PREFIX).toBe('builtin_');
    const found = problems({
      nodes: [{ id: 'a', tools: ['builtin_node_finish', 'x'] }],
      tools: {
        builtin_output_set: {},
        x: { params: { p: { source: 'evidence', from: ['builtin_evidence_read'] } } },
      },
    });
    const words = (name: string) =>
      `"${name}" is a builtin tool name; builtin tools are offered by the runtime where a node can use them and take no policy, so expected another tool`;
    expect(found).toEqual([
      `nodes.0.tools.0: ${words('builtin_node_finish')}`,
      `tools.@builtin_output_set: ${words('builtin_output_set')}`,
      `tools.x.params.p.from.0: ${words('builtin_evidence_read')}`,
    ]);
  });

  it('a policy, from or verify tool no node lists is a problem, with a suggestion and the listed tools', () => {
    const found = problems({
      ...twoNodes,
      tools: {
        site_creat: {},
        site_create: {
          params: { spaceId: { source: 'evidence', from: ['spaces'] } },
          pending: 'x',
          verify: { tool: 'site_gte', args: {}, done: 'y' },
        },
      },
    });
    const listed = 'listed: space_list, site_list, site_create, site_get';
    expect(found).toEqual([
      `tools.@site_creat: tool "site_creat" is not visible in any node (did you mean "site_create"?); expected a tool listed in a node's tools (${listed})`,
      `tools.site_create.params.spaceId.from.0: tool "spaces" is not visible in any node; expected a tool listed in a node's tools (${listed})`,
      `tools.site_create.verify.tool: tool "site_gte" is not visible in any node (did you mean "site_get"?); expected a tool listed in a node's tools (${listed})`,
      'tools.site_create.verify.tool: verify tool "site_gte" is not visible in node "create", where "site_create" is; expected it in that node\'s tools (the model calls it to confirm the write)',
    ]);
  });

  it('a recover tool and a tool the host registers count as named', () => {
    const data: FlowData = {
      nodes: [{ id: 'a', tools: ['create'] }],
      tools: {
        create: { recover: { tool: 'find', args: {}, found: 'x' } },
        find: {},
        local_calc: {},
      },
    };
    expect(problems(data)).toEqual([
      `tools.@local_calc: tool "local_calc" is not visible in any node; expected a tool listed in a node's tools (listed: create)`,
    ]);
    expect(problems(data, ['local_calc'])).toEqual([]);
  });

  it('an output from a tool no node lists is a problem; an output from needs evidence among its sources', () => {
    const found = problems({
      nodes: [
        {
          id: 'a',
          tools: ['list'],
          outputs: { x: { sources: ['evidence'], from: ['lst'] }, y: { sources: ['user'], from: ['list'] } },
        },
      ],
    });
    expect(found).toEqual([
      `nodes.0.outputs.x.from.0: tool "lst" is not visible in any node (did you mean "list"?); expected a tool listed in a node's tools (listed: list)`,
      'nodes.0.outputs.y.from: from names the tools whose evidence may be cited; expected sources to include evidence',
    ]);
  });

  it('a tool listed twice in one node is a problem at its second place; in two nodes it is not', () => {
    expect(
      problems({
        nodes: [
          { id: 'a', tools: ['x', 'y', 'x'] },
          { id: 'b', tools: ['x'] },
        ],
      }),
    ).toEqual(['nodes.0.tools.2: tool "x" is listed twice; expected each tool once']);
  });

  it('says (none) when no node lists a tool', () => {
    expect(problems({ nodes: [{ id: 'a' }], tools: { t: {} } })).toEqual([
      `tools.@t: tool "t" is not visible in any node; expected a tool listed in a node's tools (listed: (none))`,
    ]);
  });
});

describe('toolProblems: contracts', () => {
  const withParam = (contract: Record<string, unknown>): FlowData => ({
    nodes: [{ id: 'a', tools: ['t', 'list'] }],
    tools: { t: { params: { p: contract } } },
  });

  it('source: evidence needs from; from, path and match need evidence', () => {
    expect(problems(withParam({ source: 'evidence' }))).toEqual([
      'tools.t.params.p.source: source: evidence needs from; expected from: [the tools whose results hold the allowed values]',
    ]);
    expect(problems(withParam({ source: 'user', from: ['list'], path: 'a', match: 'contains' }))).toEqual([
      'tools.t.params.p.@from: from applies to source: evidence only; expected source: evidence beside it',
      'tools.t.params.p.@path: path applies to source: evidence only; expected source: evidence beside it',
      'tools.t.params.p.@match: match applies to source: evidence only; expected source: evidence beside it',
    ]);
    expect(problems(withParam({ source: ['user', 'evidence'], from: ['list'], match: 'contains' }))).toEqual(
      [],
    );
  });

  it('untrusted needs evidence among the sources', () => {
    expect(problems(withParam({ source: 'user', untrusted: 'refuse' }))).toEqual([
      'tools.t.params.p.@untrusted: untrusted says what a value found in untrusted text may be; expected source: evidence beside it',
    ]);
    expect(problems(withParam({ source: 'evidence', from: ['list'], untrusted: 'single' }))).toEqual([]);
  });

  it('a path must parse as JSONata', () => {
    expect(problems(withParam({ source: 'evidence', from: ['list'], path: 'data.[id' }))).toEqual([
      expect.stringMatching(/^tools\.t\.params\.p\.path: expected a JSONata expression: /),
    ]);
  });

  it('a schema must be a valid JSON Schema, its problems under the schema path', () => {
    expect(problems(withParam({ schema: { type: 'strin' } }))).toEqual([
      expect.stringMatching(/^tools\.t\.params\.p\.schema\.type: expected a valid JSON Schema: /),
    ]);
  });

  it('fields stand alone: provenance keys beside them are problems, and each field is checked', () => {
    expect(
      problems(
        withParam({
          source: 'user',
          enum: ['a'],
          fields: { id: { source: 'evidence' }, n: { source: 'user' } },
        }),
      ),
    ).toEqual([
      'tools.t.params.p.@source: source does not apply beside fields (each field has its own contract); expected it inside fields.<name>',
      'tools.t.params.p.@enum: enum does not apply beside fields (each field has its own contract); expected it inside fields.<name>',
      'tools.t.params.p.fields.id.source: source: evidence needs from; expected from: [the tools whose results hold the allowed values]',
    ]);
  });

  it('derive stands alone, and its operands are contracts of their own', () => {
    expect(
      problems(
        withParam({
          source: 'user',
          derive: {
            op: 'difference',
            of: [{}],
          },
        }),
      ),
    ).toEqual([
      'tools.t.params.p.@source: source does not apply beside derive (each operand has its own contract); expected it inside derive.of',
      'tools.t.params.p.derive.of: difference needs at least two operands (the first minus the others)',
      'tools.t.params.p.derive.of.0: an operand needs source (evidence or user) or derive',
    ]);
  });

  it('percentage needs factor; an evidence operand needs from; operand paths parse; untrusted needs evidence', () => {
    expect(
      problems(
        withParam({
          derive: {
            op: 'percentage',
            of: [
              { source: 'evidence' },
              { source: 'evidence', from: ['list'], path: 'a..' },
              { source: 'user', untrusted: 'pinned' },
            ],
          },
        }),
      ),
    ).toEqual([
      'tools.t.params.p.derive.op: percentage needs factor (the percentage, e.g. 19.5)',
      'tools.t.params.p.derive.of.0.source: source: evidence needs from; expected from: [the tools whose results hold the allowed values]',
      expect.stringMatching(/^tools\.t\.params\.p\.derive\.of\.1\.path: expected a JSONata expression: /),
      'tools.t.params.p.derive.of.2.@untrusted: untrusted says what a value found in untrusted text may be; expected source: evidence beside it',
    ]);
  });

  it('a nested derivation is checked at its own path', () => {
    expect(
      problems(
        withParam({
          derive: { op: 'sum', of: [{ derive: { op: 'difference', of: [{ source: 'user' }] } }] },
        }),
      ),
    ).toEqual([
      'tools.t.params.p.derive.of.0.derive.of: difference needs at least two operands (the first minus the others)',
    ]);
  });
});
