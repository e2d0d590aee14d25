#!/usr/bin/env node
// `npm run demo`: the site-builder example flow against the bundled demo MCP server, driven by the
// scripted model. It starts from a fresh demo-cloud data folder, runs until the write needs approval
// (asked inline in a terminal), and tells how to continue when it is not a terminal.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'examples', 'site-builder', '.data'), { recursive: true, force: true });
const cli = join(root, 'dist', 'src', 'cli', 'main.js');
const args = [
  cli,
  'run',
  join(root, 'examples', 'site-builder', 'flow.yaml'),
  '--input',
  '在默认空间创建一个名为 官网 的站点',
  ...process.argv.slice(2),
];
const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
if (result.status === 3) {
  process.stderr.write(
    '\nThe demo paused for approval (exit code 3). Approve it with the command above, e.g.\n  npx agent-runtime approve <RUN_ID>\n',
  );
  process.exit(0);
}
process.exit(result.status ?? 1);
