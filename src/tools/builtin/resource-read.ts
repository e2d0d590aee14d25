import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { EvidenceRecord } from '../../records/run-state.js';
import type { CallInput } from '../call.js';
import { limitsOf } from '../context.js';
import { recordEvidence } from '../guards/evidence.js';
import type { ProducedCase } from '../produces.js';
import { standardBuiltin } from './define.js';

/** What builtin_resource_read produces (for docs/observations.md); a failed read is the invoker's code. */
const RESOURCE_READ_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'builtin_resource_read',
    case: 'the linked resource’s contents (`{uri, contents}`, binary contents as their size), recorded as evidence',
    code: null,
  },
  {
    producer: 'builtin_resource_read',
    case: 'no tool result of this run links to that uri and the node has no `resources` (next lists some links)',
    code: 'RESOURCE_NOT_LINKED',
    next: 'NEXT_RESOURCE_LINK',
  },
  {
    producer: 'builtin_resource_read',
    case: '`server` is not one of the node’s `resources`, or it is left out while the node has several (next lists them)',
    code: 'RESOURCE_SERVER_UNKNOWN',
    next: 'NEXT_RESOURCE_SERVER',
  },
];

/** How many linked uris a rejection's next step lists. */
const LISTED_URIS = 10;

/** A `resource_link` a tool of the run returned, with the MCP server that tool belongs to. */
export interface ResourceLink {
  uri: string;
  server: string;
}

/** The `resource_link` uris of one successful call's payload, in payload order, with its tool. */
interface LinkedBy {
  uris: string[];
  tool: string;
}

/**
 * Per evidence array (a run's, appended to in place): the records among its first `scanned` that hold
 * links, oldest first. Each step scans only the records appended since, so offering builtin_resource_read
 * costs the same at step 5,000 as at step 5.
 */
const scans = new WeakMap<readonly EvidenceRecord[], { scanned: number; links: LinkedBy[] }>();

function linksIn(evidence: readonly EvidenceRecord[]): readonly LinkedBy[] {
  let scan = scans.get(evidence);
  // Records are only appended; an array that became shorter is scanned afresh.
  if (!scan || scan.scanned > evidence.length) {
    scan = { scanned: 0, links: [] };
    scans.set(evidence, scan);
  }
  for (; scan.scanned < evidence.length; scan.scanned += 1) {
    const record = evidence[scan.scanned] as EvidenceRecord;
    if (record.outcome !== 'SUCCESS' || !Array.isArray(record.payload)) continue;
    const uris: string[] = [];
    for (const block of record.payload as unknown[]) {
      const b = block as { type?: unknown; uri?: unknown } | null;
      if (b?.type === 'resource_link' && typeof b.uri === 'string') uris.push(b.uri);
    }
    if (uris.length > 0) scan.links.push({ uris, tool: record.tool });
  }
  return scan.links;
}

/**
 * The resource links in the run's evidence, newest first: `resource_link` blocks of the payload of a
 * successful MCP tool call, each with that tool's server.
 */
export function resourceLinks(ctx: Pick<CallInput, 'run' | 'tools'>): ResourceLink[] {
  const links: ResourceLink[] = [];
  const found = linksIn(ctx.run.evidence);
  for (let i = found.length - 1; i >= 0; i--) {
    const { uris, tool } = found[i] as LinkedBy;
    const server = ctx.tools.get(tool)?.server;
    if (server) for (const uri of uris) links.push({ uri, server });
  }
  return links;
}

/** True when some evidence of the run holds a resource link (then builtin_resource_read is offered). */
export function hasResourceLink(ctx: Pick<CallInput, 'run' | 'tools'>): boolean {
  const found = linksIn(ctx.run.evidence);
  for (let i = found.length - 1; i >= 0; i--)
    if (ctx.tools.get((found[i] as LinkedBy).tool)?.server) return true;
  return false;
}

/**
 * builtin_resource_read: reads, with MCP `resources/read`, a resource that a tool result of this run
 * linked to (`resource_link`), on the server of the tool that gave the link, or any uri on one of the
 * node's `resources` servers (the server says whether it has it) — never a uri of a server the flow
 * did not open to the node. The contents become evidence like a tool's result, so their values can be
 * cited. It is in the catalog of a node with `resources`; elsewhere it is offered once the run's
 * evidence holds a link (src/engine/node-host.ts).
 */
export const resourceReadTool = standardBuiltin({
  name: 'builtin_resource_read',
  description: {
    'zh-CN': '读取工具结果中 resource_link 链接的资源内容（MCP resources/read）。结果记为证据，可被引用。',
    en: 'Reads the resource a tool result linked to (a resource_link; MCP resources/read). The result is evidence and can be cited.',
  },
  input: {
    properties: {
      uri: {
        type: 'string',
        description: {
          'zh-CN': 'resource_link 中的 uri，或 builtin_resource_list 列出的资源 uri（或按其模板填写的 uri）',
          en: 'The uri of the resource_link, or of a resource builtin_resource_list listed (or filled in from one of its templates)',
        },
      },
      server: {
        type: 'string',
        description: {
          'zh-CN': '可选：资源所在的 MCP 服务器（本节点有多个资源服务器时必填）',
          en: 'Optional: the MCP server of the resource (required when this node has several resource servers)',
        },
      },
    },
    required: ['uri'],
  },
  produces: RESOURCE_READ_PRODUCES,
  visible: (node) => (node.resources ?? []).length > 0,
  async execute(args, ctx) {
    const uri = typeof args.uri === 'string' ? args.uri : '';
    const links = resourceLinks(ctx);
    const read = ctx.services.invoker.readResource?.bind(ctx.services.invoker);
    const target = readTarget(ctx, uri, typeof args.server === 'string' ? args.server : undefined, links);
    if (!read || target.rejected) return target.rejected ?? rejected(ctx, uri, []);
    const limits = limitsOf(ctx);
    const observation = await read(target.server, uri, {
      timeoutMs: limits.toolTimeoutMs,
      locale: ctx.locale,
      ...(ctx.services.signal ? { signal: ctx.services.signal } : {}),
    });
    if (observation.outcome.name !== 'SUCCESS' && observation.outcome.name !== 'FAILED') return observation;
    const recorded = { uri, ...(target.named ? { server: target.server } : {}) };
    const record = recordEvidence(ctx, { tool: 'builtin_resource_read', args: recorded, observation });
    return observation.withEvidence(record.id);
  },
});

type Target = { server: string; named: boolean; rejected?: undefined } | { rejected: Observation };

/**
 * Which server a read goes to: the one the model named, when it is one of the node's resource servers;
 * else the server of a link to the uri; else the node's only resource server.
 */
function readTarget(ctx: CallInput, uri: string, named: string | undefined, links: ResourceLink[]): Target {
  const servers = ctx.flow.nodes.find((n) => n.id === ctx.nodeId)?.resources ?? [];
  if (named !== undefined && named !== '') {
    if (servers.includes(named)) return { server: named, named: true };
    const c = code('RESOURCE_SERVER_UNKNOWN');
    const next = hint(ctx.locale, 'NEXT_RESOURCE_SERVER', {
      servers: servers.length > 0 ? list(ctx.locale, servers) : hint(ctx.locale, 'NONE'),
    });
    return { rejected: Observation.rejected(c, c.reason(ctx.locale, { server: named }), next) };
  }
  const link = links.find((l) => l.uri === uri);
  if (link) return { server: link.server, named: false };
  if (servers.length === 1) return { server: servers[0] as string, named: false };
  if (servers.length > 1)
    return {
      rejected: Observation.rejected(
        code('RESOURCE_SERVER_UNKNOWN'),
        code('RESOURCE_SERVER_UNKNOWN').reason(ctx.locale, { server: '' }),
        hint(ctx.locale, 'NEXT_RESOURCE_SERVER', { servers: list(ctx.locale, servers) }),
      ),
    };
  const uris = [...new Set(links.map((l) => l.uri))].slice(0, LISTED_URIS);
  return { rejected: rejected(ctx, uri, uris) };
}

function rejected(ctx: CallInput, uri: string, uris: string[]): Observation {
  const c = code('RESOURCE_NOT_LINKED');
  return Observation.rejected(
    c,
    c.reason(ctx.locale, { uri }),
    hint(ctx.locale, 'NEXT_RESOURCE_LINK', {
      uris: uris.length > 0 ? list(ctx.locale, uris) : hint(ctx.locale, 'NONE'),
    }),
  );
}
