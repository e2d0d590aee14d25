import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { CallInput } from '../call.js';
import { limitsOf } from '../context.js';
import { recordEvidence } from '../guards/evidence.js';
import type { ProducedCase } from '../produces.js';
import { standardBuiltin } from './define.js';

/** What builtin_resource_list produces (for docs/observations.md); a failed listing is the invoker's code. */
const RESOURCE_LIST_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'builtin_resource_list',
    case: 'the resources and resource templates of the node’s `resources` servers (`{servers: [{server, resources, templates}]}`, at most 100 of each per server), recorded as evidence',
    code: null,
  },
  {
    producer: 'builtin_resource_list',
    case: '`server` is not one of the node’s `resources` (next lists them)',
    code: 'RESOURCE_SERVER_UNKNOWN',
    next: 'NEXT_RESOURCE_SERVER',
  },
];

/**
 * builtin_resource_list: the resources (`resources/list`) and resource templates
 * (`resources/templates/list`) of the node's `resources` servers, or of the one named in `server`. The
 * listing is evidence like a tool's result, so a uri from it can be cited; the model reads a resource
 * with builtin_resource_read. Offered only in a node with `resources`.
 */
export const resourceListTool = standardBuiltin({
  name: 'builtin_resource_list',
  description: {
    'zh-CN':
      '列出本节点可读的 MCP 服务器资源及资源模板（resources/list、resources/templates/list）；再用 builtin_resource_read 读取。',
    en: "Lists the resources and resource templates of this node's MCP servers (resources/list, resources/templates/list); read one with builtin_resource_read.",
  },
  input: {
    properties: {
      server: {
        type: 'string',
        description: {
          'zh-CN': '可选：只列出这个服务器的资源',
          en: "Optional: list only this server's resources",
        },
      },
    },
    required: [],
  },
  produces: RESOURCE_LIST_PRODUCES,
  visible: (node) => (node.resources ?? []).length > 0,
  async execute(args, ctx) {
    const servers = ctx.flow.nodes.find((n) => n.id === ctx.nodeId)?.resources ?? [];
    const named = typeof args.server === 'string' && args.server !== '' ? args.server : undefined;
    const listResources = ctx.services.invoker.listResources?.bind(ctx.services.invoker);
    if (named !== undefined && !servers.includes(named)) return unknownServer(ctx, named, servers);
    if (!listResources) return unknownServer(ctx, named ?? '', []);
    const limits = limitsOf(ctx);
    const options = {
      timeoutMs: limits.toolTimeoutMs,
      locale: ctx.locale,
      ...(ctx.services.signal ? { signal: ctx.services.signal } : {}),
    };
    const recordArgs = named === undefined ? {} : { server: named };
    const listed: unknown[] = [];
    for (const server of named === undefined ? servers : [named]) {
      const observation = await listResources(server, options);
      if (observation.outcome.name !== 'SUCCESS') return evidenced(ctx, recordArgs, observation);
      listed.push(observation.data);
    }
    const done = hint(ctx.locale, 'SUCCESS', { tool: 'builtin_resource_list' });
    return evidenced(ctx, recordArgs, Observation.success(done, { servers: listed }));
  },
});

/** A SUCCESS or FAILED listing becomes evidence and cites it; anything else is returned as is. */
function evidenced(ctx: CallInput, args: Record<string, unknown>, observation: Observation): Observation {
  if (observation.outcome.name !== 'SUCCESS' && observation.outcome.name !== 'FAILED') return observation;
  const record = recordEvidence(ctx, { tool: 'builtin_resource_list', args, observation });
  return observation.withEvidence(record.id);
}

function unknownServer(ctx: CallInput, server: string, servers: readonly string[]): Observation {
  const c = code('RESOURCE_SERVER_UNKNOWN');
  return Observation.rejected(
    c,
    c.reason(ctx.locale, { server }),
    hint(ctx.locale, 'NEXT_RESOURCE_SERVER', {
      servers: servers.length > 0 ? list(ctx.locale, servers) : hint(ctx.locale, 'NONE'),
    }),
  );
}
