import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { demoDataDir, DEMO_SERVER, REPO_ROOT } from './demo-server.js';

/** The acceptance site flow's run input. */
export const SITE_INPUT = '在默认空间创建一个名为 官网 的站点';
/** The site flow's reply once the site was created (the last turn's finish summary). */
export const SITE_REPLY = '站点「官网」已创建';

/** A folder with the acceptance site flow (a gated write), its scripted model and a demo server of its own. */
export interface SiteFlowDir {
  readonly dir: string;
  /** The demo server's data folder (writes.jsonl lists the writes it executed). */
  readonly dataDir: string;
  /** The writes the demo server executed. */
  writes(): { tool: string }[];
  remove(): void;
}

/**
 * Writes `site.flow.yaml` (examples/acceptance/site.flow.yaml with `model: scripted:./turns.yaml`
 * and the demo server's data folder) and `turns.yaml` (the write-then-approve scenario) into a fresh
 * folder: the run calls the write, asks for approval (suspends), and after it creates the site once.
 */
export function siteFlowDir(): SiteFlowDir {
  const dir = mkdtempSync(join(tmpdir(), 'flow-tools-'));
  const dataDir = demoDataDir();
  const source = readFileSync(join(REPO_ROOT, 'examples/acceptance/site.flow.yaml'), 'utf8');
  const flow = source
    .replace('locale: zh-CN', 'locale: zh-CN\nmodel: scripted:./turns.yaml')
    .replace(
      'args: [../demo-cloud/server.js]',
      `args: [${JSON.stringify(DEMO_SERVER)}]\n    env: { DEMO_CLOUD_DATA: ${JSON.stringify(dataDir)} }`,
    );
  writeFileSync(join(dir, 'site.flow.yaml'), flow);
  copyFileSync(join(REPO_ROOT, 'examples/acceptance/turns/write-then-approve.yaml'), join(dir, 'turns.yaml'));
  return {
    dir,
    dataDir,
    writes: () => {
      let text = '';
      try {
        text = readFileSync(join(dataDir, 'writes.jsonl'), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { tool: string });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Calls the site flow's MCP tool (`acceptance-site`) with `client`, whose elicitation handler approves
 * and pushes each question to `asked`, and expects one question about the write, the site written once
 * and the run completed with its reply in the same call.
 */
export async function expectSiteApprovedInCall(client: Client, asked: readonly string[], site: SiteFlowDir) {
  const result = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
  expect(asked).toHaveLength(1);
  expect(asked[0]).toContain('web_site_create');
  expect(result.structuredContent).toMatchObject({ status: 'completed', reply: SITE_REPLY });
  expect(site.writes().map((w) => w.tool)).toEqual(['web_site_create']);
}
