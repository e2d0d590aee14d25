import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inspectFlow } from '../../src/flow/load.js';
import { formatProblem } from '../../src/flow/problems.js';

/** A valid flow over the demo tools, as YAML, to be broken one piece at a time by the tests. */
export const BASE = `id: t
mcpServers:
  cloud: { command: node, args: [server.js] }
tools:
  web_site_create:
    write: true
    params:
      spaceId: { source: evidence, from: [space_list], path: data.spaceId }
      name: { source: user, required: true }
    pending: "result.data.status = 'CREATING'"
    verify: { tool: web_site_get, args: { siteId: result.data.siteId }, done: "verify.data.status = 'ACTIVE'" }
nodes:
  - id: query
    tools: [space_list, web_site_list]
    outputs:
      sites: { sources: [evidence], from: [web_site_list] }
  - id: create
    instructions: "Sites: {{nodes.query.outputs.sites}}"
    tools: [space_list, web_site_create, web_site_get]
    outputs:
      siteId: { required: true, sources: [evidence], from: [web_site_create] }
edges:
  - { from: query, to: create }
`;

/** Writes files (path → text) into a fresh temp folder and returns the folder. */
export async function tempFiles(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'flow-test-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** Loads `yaml` as `flow.yaml` in a temp folder and returns its problems as printed lines (file name `flow.yaml`). */
export async function problemLines(yaml: string, extra: Record<string, string> = {}): Promise<string[]> {
  const dir = await tempFiles({ 'flow.yaml': yaml, ...extra });
  const inspection = await inspectFlow(join(dir, 'flow.yaml'));
  return inspection.problems.map((p) => formatProblem(p).replace(`${dir}/`, ''));
}
