/**
 * The local-tool variant of the bench:scale workload: the demo cloud's three tools the flow uses, as
 * local tools of the worker process (no MCP server), each write appended to a shared log so that the
 * bench can check every site was created once. Nothing here is shipped.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { loadFlowText, type LoadedFlow } from '../src/flow/load.js';
import { defineTool, type LocalTool } from '../src/tools/tool.js';

const ok = (data: unknown) => ({ code: 0, message: 'ok', data });

/**
 * `space_list`, `web_site_list` and `web_site_create` as local tools answering like the demo server.
 * Sites live in this process (a takeover's look-back would not see another worker's); every create is
 * appended to `writeLog` as one JSON line.
 */
export function localSiteTools(writeLog: string): LocalTool[] {
  const sites: { siteId: string; spaceId: string; name: string }[] = [];
  return [
    defineTool({
      name: 'space_list',
      description: 'List the spaces',
      inputSchema: { type: 'object', properties: {} },
      execute: () => ok([{ spaceId: 's1', name: 'default', isDefault: true }]),
    }),
    defineTool<{ spaceId: string }>({
      name: 'web_site_list',
      description: 'List the sites of a space',
      inputSchema: { type: 'object', properties: { spaceId: { type: 'string' } }, required: ['spaceId'] },
      execute: ({ spaceId }) => ok(sites.filter((s) => s.spaceId === spaceId)),
    }),
    defineTool<{ spaceId: string; name: string }>({
      name: 'web_site_create',
      description: 'Create a site',
      write: true,
      inputSchema: {
        type: 'object',
        properties: { spaceId: { type: 'string' }, name: { type: 'string' } },
        required: ['spaceId', 'name'],
      },
      execute: (args, context) => {
        const site = { siteId: `w${process.pid}-${sites.length + 1}`, ...args };
        sites.push(site);
        appendFileSync(
          writeLog,
          `${JSON.stringify({ tool: 'web_site_create', idempotencyKey: context.idempotencyKey ?? null, args })}\n`,
        );
        return ok(site);
      },
    }),
  ];
}

/** The names of the local tools. */
export const LOCAL_TOOL_NAMES = ['space_list', 'web_site_list', 'web_site_create'];

/** The workload's flow without an MCP server: the same node and write policy, over the local tools. */
export function localScaleFlow(): Promise<LoadedFlow> {
  return loadFlowText(
    `id: scale-site-local
version: 1
locale: en
limits: { maxRounds: 12, maxStalls: 3, fingerprintRepeats: 2, toolTimeoutMs: 15000 }
tools:
  web_site_create:
    write: true
    params:
      spaceId: { source: evidence, from: [space_list], path: 'data.spaceId' }
      name: { source: user, required: true }
    response: { okPath: code, okValues: [0], codePath: code, messagePath: message }
    recover:
      tool: web_site_list
      args: { spaceId: 'args.spaceId' }
      found: '$count(verify.data[name = $$.args.name]) > 0'
nodes:
  - id: create
    instructions: Create the site the user names, in the default space.
    tools: [space_list, web_site_list, web_site_create]
    outputs:
      name: { required: true, sources: [evidence], from: [web_site_create, web_site_list] }
`,
    { name: 'scale-site-local.flow.yaml', knownTools: LOCAL_TOOL_NAMES },
  );
}

/** The creates a write log holds. */
export function loggedWrites(writeLog: string): { tool: string; args: { name?: string } }[] {
  if (!existsSync(writeLog)) return [];
  return readFileSync(writeLog, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { tool: string; args: { name?: string } });
}
