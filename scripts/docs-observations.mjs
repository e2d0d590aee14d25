// Regenerates docs/observations.md from the code (`npm run docs:observations`). It runs the doc's sync test
// with WRITE_OBSERVATIONS_DOC=1, which writes the file instead of comparing it (vitest compiles the TypeScript).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', 'test/tools/pipeline.observations-doc.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, WRITE_OBSERVATIONS_DOC: '1' },
});
process.exit(result.status ?? 1);
