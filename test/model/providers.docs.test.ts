import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/domain/flow.js';
import type { ListServerTools } from '../../src/flow/mcp-check.js';
import { listToolsOverMcp } from '../../src/flow/mcp-lister.js';
import { validateFlow } from '../../src/flow/validate.js';
import { resolveProviderSettings } from '../../src/model/providers.js';
import { parseModelName } from '../../src/model/resolve.js';
import { DEMO_SERVER, demoDataDir, REPO_ROOT } from '../helpers/demo-server.js';

/** The flows in docs/models/*.md (YAML blocks with `nodes:`), by page. */
function docFlows(): { page: string; yaml: string }[] {
  const dir = join(REPO_ROOT, 'docs/models');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .flatMap((page) =>
      [...readFileSync(join(dir, page), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
        .map((m) => m[1]!)
        .filter((yaml) => yaml.includes('\nnodes:'))
        .map((yaml) => ({ page, yaml })),
    );
}

const tmp = mkdtempSync(join(tmpdir(), 'docs-models-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

/** Lists the demo server's tools once (a real MCP connection), whatever path the snippet gives it. */
let demoTools: ReturnType<ListServerTools> | undefined;
const listDemo: ListServerTools = (serverId, server: McpServerConfig) => {
  expect(server).toMatchObject({ command: 'node', args: ['examples/demo-cloud/server.js'] });
  demoTools ??= listToolsOverMcp(
    serverId,
    { command: 'node', args: [DEMO_SERVER], env: { DEMO_CLOUD_DATA: demoDataDir() } },
    REPO_ROOT,
  );
  return demoTools;
};

/** Every key variable the pages tell the reader to set. */
const ENV = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', DASHSCOPE_API_KEY: 'k', DEEPSEEK_API_KEY: 'k' };

describe('docs/models flow snippets', () => {
  const flows = docFlows();

  it('cover every provider family page', () => {
    expect(new Set(flows.map((f) => f.page))).toEqual(
      new Set(['openai.md', 'anthropic.md', 'openai-compatible.md', 'qwen.md', 'deepseek.md', 'ollama.md']),
    );
  });

  it.each(flows.map((f) => [f.page, f.yaml]))(
    '%s: the flow validates against the demo server and its model resolves',
    async (page, yaml) => {
      const file = join(tmp, page.replace('.md', '.yaml'));
      writeFileSync(file, yaml);
      const { problems, loaded } = await validateFlow(file, { servers: listDemo });
      expect(problems).toEqual([]);
      const { provider, modelId } = parseModelName(loaded!.flow.model!);
      expect(() => resolveProviderSettings(provider, modelId, ENV, loaded!.flow.providers)).not.toThrow();
    },
    30_000,
  );
});
